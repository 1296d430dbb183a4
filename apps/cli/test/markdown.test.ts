import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, scripted, TEST_SKILLS } from './helpers/env.js';
import type { Terminal } from './helpers/pty.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

// The answer the script gives to "show markdown" (and, token by token with a delay, to "stream markdown slowly").
const SOURCE_LINES = [
  '# Release plan',
  'Ship **fast** and keep `main` green; see [the guide](https://example.com/guide).',
  '| Step | Minutes |',
  '```ts',
];

const repl = useReplSandbox(scripted('repl.json'));

/** The REPL in a pty; with `colors`, NO_COLOR (which every test sandbox sets) is taken out. */
const start = (colors: boolean, args: string[] = []) =>
  repl.start(['--skills-dir', TEST_SKILLS, ...args], { colors });

const STATUS = /session: (\S+) │ ctx/;

/** What the pty's screen shows (erased raw text gone), from the last line that starts with `from`. */
async function screenOf(t: Terminal, from: string): Promise<string> {
  const screen = await t.screen();
  return screen.slice(screen.lastIndexOf(`› ${from}`));
}

describe('Markdown answers in the REPL (compiled CLI, real pty)', { timeout: 60_000 }, () => {
  it('renders a heading, a list, a table and a highlighted code block in a terminal with colors', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('show markdown');
    await t.expect('That is all.');
    await t.expect(STATUS);
    const shown = await screenOf(t, 'show markdown');
    expect(shown).toContain('\nRelease plan\n');
    expect(shown.split('Release plan')).toHaveLength(2);
    expect(shown).toContain('Ship fast and keep main green; see the guide (https://example.com/guide).');
    expect(shown).toContain('1. build it\n2. test it\n   ◦ unit\n   ◦ pty\n');
    expect(shown).toContain('Step  │ Minutes\n──────┼────────\nbuild │       3\ntest  │      12\n');
    expect(shown).toContain('```ts\nconst answer: number = 42; // checked\n```');
    for (const raw of SOURCE_LINES.slice(0, 3)) expect(shown).not.toContain(raw);
    // Highlighted: the keyword, the number and the comment each in their color; the heading bold and underlined.
    const output = t.output.slice(t.output.lastIndexOf('show markdown'));
    expect(output).toContain('\x1b[35mconst\x1b[39m');
    expect(output).toContain('\x1b[33m42\x1b[39m');
    expect(output).toContain('\x1b[90m// checked\x1b[39m');
    expect(output).toContain('\x1b[1m\x1b[4m\x1b[36mRelease plan');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('renders an answer streamed token by token as the same blocks, each written once', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('stream markdown slowly');
    await t.expect('That is all.');
    await t.expect(STATUS);
    const shown = await screenOf(t, 'stream markdown slowly');
    for (const raw of SOURCE_LINES.slice(0, 3)) expect(shown).not.toContain(raw);
    for (const once of ['Release plan', 'Step  │', 'const answer', 'That is all.'])
      expect(shown.split(once), once).toHaveLength(2);
    expect(shown).toContain('Step  │ Minutes\n──────┼────────\nbuild │       3\ntest  │      12\n');
    expect(shown).toContain('```ts\nconst answer: number = 42; // checked\n```');
    expect(t.output.slice(t.output.lastIndexOf('stream markdown slowly'))).toContain('\x1b[35mconst\x1b[39m');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('with NO_COLOR shows the answer as the model wrote it', async () => {
    const t = start(false);
    await t.expect('/help for commands');
    await t.submit('show markdown');
    await t.expect('That is all.');
    const shown = t.text.slice(t.text.lastIndexOf('show markdown'));
    for (const raw of SOURCE_LINES) expect(shown).toContain(raw);
    expect(t.output.slice(t.output.lastIndexOf('show markdown'))).not.toContain('\x1b[35mconst');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('in a pipe (birdie run, -p, --json) the answer is the Markdown as written, even with colors allowed', async () => {
    const { NO_COLOR: _, ...withColors } = repl.box.env;
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [BIN, ...args, '--skills-dir', TEST_SKILLS],
          { env: { ...withColors, FORCE_COLOR: '1' }, cwd: repl.box.cwd },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        );
      });
    const script = JSON.parse(await readFile(join(repl.box.env.LLM_SCRIPT!), 'utf8')) as {
      replies: { match?: string; text?: string }[];
    };
    const answer = script.replies.find((r) => r.match === 'show markdown')!.text!;
    expect(await run(['run', 'show markdown'])).toBe(`${answer}\n`);
    expect(await run(['-p', 'show markdown'])).toBe(`${answer}\n`);
    const events = (await run(['run', '--json', 'show markdown']))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    expect(
      events
        .filter((e) => e.type === 'token')
        .map((e) => e.text)
        .join(''),
    ).toBe(answer);
  });

  it('Ctrl+C in a rendered answer keeps what was shown in the history, marked cancelled, rendered on resume', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('stream markdown slowly');
    await t.expect('Release plan');
    await t.expect('green;');
    t.write('\x03');
    await t.expect('turn cancelled');
    const id = STATUS.exec(await t.expect(STATUS))![1]!;
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    const again = start(true, ['--session-id', id]);
    await again.expect(`resuming ${id}`);
    await again.expect('› stream markdown slowly');
    await again.expect('[cancelled]');
    await again.expect(STATUS);
    const kept = await screenOf(again, 'stream markdown slowly');
    expect(kept).toMatch(/\nRelease plan\n\nShip fast and keep[^\n]*\[cancelled\]/);
    expect(kept).not.toContain('# Release plan');
    expect(kept).not.toContain('That is all.');
    await again.prompt();
    again.write('\x04');
    expect(await again.exited).toBe(0);
  });

  it('an answer before an approval is rendered above the approval box, which nothing draws over', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('plan then touch');
    await t.expect('[a] Approve every run_command command for this session');
    const asking = await screenOf(t, 'plan then touch');
    expect(asking).toMatch(
      /\nPlan\n\nI will touch one file:\n\n```sh\ntouch planned.txt\n```\n\nAsking first\.\n/,
    );
    expect(asking).toContain('run_command (raw-shell) needs approval');
    await t.approvalReady();
    t.write('y');
    await t.expect('Touched');
    await t.expect(STATUS);
    const after = await screenOf(t, 'plan then touch');
    expect(after.split('Plan')).toHaveLength(2);
    expect(after).toContain('Asking first.');
    expect(after).toContain('Touched planned.txt.');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });
});
