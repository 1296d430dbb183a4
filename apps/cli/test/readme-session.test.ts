import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT, scripted } from './helpers/env.js';
import type { Terminal } from './helpers/pty.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

/**
 * The CLI README's screen recording is this test's transcript: one REPL session with the repository's own skills and
 * the scripted demo model, showing an answer rendered as Markdown, an approval and a tool running live. The test
 * fails when the README no longer shows what the terminal shows; `UPDATE_README=1` writes the new recording.
 */

const README = join(CLI_ROOT, 'README.md');
const BEGIN = '<!-- recording: test/readme-session.test.ts -->';
const END = '<!-- /recording -->';
const REPO_SKILLS = join(CLI_ROOT, '..', '..', 'skills');
const COLS = 100;

const repl = useReplSandbox({ ...scripted('demo.json'), BIRDIE_BUNDLED_SKILLS: REPO_SKILLS });

/** What differs from run to run: session ids, durations, token counts, the spinner's frame, the version. */
function normalise(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}_\d+/g, 'SESSION')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'TIME')
    .replace(/(ctx: )\d+/g, '$1N')
    .replace(/↑\d+ ↓\d+/g, '↑N ↓N')
    .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/g, 'SPIN')
    .replace(/birdie \d+\.\d+\.\d+\S*/g, 'birdie VERSION')
    .replace(/[ \t]+$/gm, '');
}

/** The screen from the last line that starts with `from` (the whole screen when there is none). */
function from(screen: string, start: string): string {
  const lines = screen.split('\n');
  let at = -1;
  lines.forEach((line, i) => {
    if (line.startsWith(start)) at = i;
  });
  return lines.slice(Math.max(at, 0)).join('\n');
}

/** A screen that stays the same for a moment: never one caught halfway through a redraw. */
async function steadyScreen(t: Terminal): Promise<string> {
  let last = await t.screen();
  for (;;) {
    await new Promise((r) => setTimeout(r, 40));
    const now = await t.screen();
    if (now === last) return now;
    last = now;
  }
}

function recording(frames: { approval: string; live: string; whole: string }): string {
  const fence = (text: string) => `\`\`\`\`text\n${text.replace(/[ \t]+$/gm, '')}\n\`\`\`\``;
  return [
    BEGIN,
    "The approval, as it is asked (`y` approves once, `e` edits, `n` or Esc refuses, each on one key; `a` and Enter for every command of the session, confirmed by typing the tool's name):",
    '',
    fence(frames.approval),
    '',
    'Halfway through the command: its last lines and its elapsed time, updating while it runs:',
    '',
    fence(frames.live),
    '',
    'The whole session once it has ended (the live area has been replaced by the result):',
    '',
    fence(frames.whole),
    END,
  ].join('\n');
}

describe('the CLI README recording', { timeout: 60_000 }, () => {
  it('is what the terminal shows in a session with rendering, an approval and a live tool', async () => {
    // A colour terminal: Markdown rendered, running tools shown live.
    const t = repl.start([], { colors: true, cols: COLS, rows: 40 });
    await t.expect('/help for commands');
    await t.submit('/skill enable shell');
    await t.expect('shell enabled');
    await t.submit('how do I build this project?');
    await t.expect('you approve the command first');
    await t.submit('build it');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    const approval = from(await steadyScreen(t), '› build it');
    t.write('y');
    await t.expect(/┆ bundle \.\.\. ok/);
    const live = from(await steadyScreen(t), '⚙ run_bash');
    await t.expect('All three steps passed');
    await t.prompt();
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
    const whole = await t.screen();

    // What the recording must show, whatever the README says.
    expect(whole).toMatch(/^Building this project$/m); // a heading, without its #
    expect(whole).toMatch(/^1\. Install the dependencies: pnpm install$/m); // a list, marks dropped
    expect(whole).toMatch(/compile\s+│ TypeScript to dist\/\s+│\s+~20 s/); // a table
    expect(whole).not.toContain('**');
    expect(approval).toContain('needs approval');
    expect(live).toMatch(/┆ compile \.\.\. ok\n┆ bundle \.\.\. ok/);
    expect(live).toMatch(/run_bash · \d+\.\ds/);
    expect(live).not.toContain('test ... ok');
    expect(whole).toMatch(/│ compile \.\.\. ok\n│ bundle \.\.\. ok\n│ test \.\.\. ok\n└ ✓ run_bash/);
    expect(whole).not.toContain('┆');

    const text = await readFile(README, 'utf8');
    const begin = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    const fresh = recording({ approval, live, whole });
    if (process.env.UPDATE_README === '1') {
      expect(begin, 'the README has no recording markers').toBeGreaterThan(-1);
      await writeFile(README, text.slice(0, begin) + fresh + text.slice(end + END.length));
      return;
    }
    expect(begin, `${README} has no "${BEGIN}" … "${END}" block`).toBeGreaterThan(-1);
    const shown = text.slice(begin, end + END.length);
    expect(normalise(shown), 'the README recording is out of date: run with UPDATE_README=1').toBe(
      normalise(fresh),
    );
  });
});
