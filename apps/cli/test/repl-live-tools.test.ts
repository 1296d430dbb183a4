import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

const repl = useReplSandbox(scripted('repl.json'));

/** The REPL in a colour terminal (the test environment sets NO_COLOR, which turns the live area off), or not. */
const start = (colors: boolean) => repl.start(['--skills-dir', TEST_SKILLS], { colors });

const count = (text: string, part: string) => text.split(part).length - 1;

describe('a running tool in the REPL (compiled CLI, real terminal)', { timeout: 60_000 }, () => {
  it('shows the last lines of its output and its elapsed time while it runs, then only the result', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('show live lines');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    t.write('y');
    // Live, under the call's header: its output so far and how long it has run, before the call has ended.
    await t.expect(/┆ line 2/);
    await t.expect(/run_command · \d+\.\ds/);
    expect(t.text).not.toContain('└ ✓ run_command');
    expect(t.text).not.toContain('line 7');
    await t.expect('└ ✓ run_command');
    await t.expect('Counted to seven.');
    await t.prompt();
    // On the screen as it stands: the result under its header, each line once, and no trace of the live area.
    const screen = await t.screen();
    const call = screen.slice(screen.lastIndexOf('⚙ run_command'));
    expect(call).toMatch(/^⚙ run_command \(raw-shell\) \{"command":"for i in[^\n]*\n│ line 1\n│ line 2\n/);
    for (let i = 1; i <= 7; i++) expect(count(screen, `line ${i}\n`)).toBeLessThanOrEqual(1);
    expect(screen).not.toContain('┆');
    expect(screen).not.toMatch(/run_command · \d+\.\ds/);
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('Ctrl+C during a running tool keeps its output on screen, marks the call cancelled, and tells the model so', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('please chatter');
    await t.expect(/┆ second line of output/);
    t.write('\x03');
    await t.expect('turn cancelled');
    await t.prompt();
    // What the tool printed stays on the screen, under its call, marked cancelled by the user; no live area is left.
    const screen = await t.screen();
    expect(screen).toMatch(
      /⚙ chatty_sleep[^\n]*\n(?:\^C cancelling…\n)?│ first line of output\n│ second line of output\n│ \[Cancelled by the user while it ran[^└]*└ ✗ cancelled by the user chatty_sleep/,
    );
    expect(screen).not.toContain('┆');
    const sessionId = /session: (\S+)/.exec(screen)![1]!;
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
    // The history (what the model reads next turn) says exactly that, with the output so far.
    const shown = await runCli(['sessions', 'show', sessionId, '--json'], {
      env: repl.box.env,
      cwd: repl.box.cwd,
    });
    const result = shown.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((m) => m.role === 'tool');
    expect(result.content).toMatch(
      /^first line of output\nsecond line of output\n\[Cancelled by the user while it ran: the output above is what it printed/,
    );
    expect(shown.stdout).not.toContain('crash or cancel');
  });

  it('a "for this session" approval outlives a turn cancelled while the approved call runs', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('approve then cancel');
    await t.expect('[a] Approve every run_command command for this session');
    await t.approveForSession('run_command');
    await t.expect(/┆ started/);
    t.write('\x03');
    await t.expect('turn cancelled');
    await t.submit('after the cancel');
    await t.expect('Ran it.');
    // Not asked again: the approval was given, even though its turn was then cancelled.
    const after = (await t.screen()).slice((await t.screen()).lastIndexOf('after the cancel'));
    expect(after).toContain('ran without asking');
    expect(after).not.toContain('[y] Yes, approve once');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('two calls side by side: a live block each, then each result under its own call', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('two live calls');
    await t.expect('[a] Approve every run_command command for this session');
    await t.approveForSession('run_command'); // the second call is approved with it
    // Both run at once, each block named by its arguments.
    await t.expect(/run_command \{"command":"for i in 1 2 3 4; do echo alpha[^\n]*· \d+\.\ds\n┆ alpha 1/);
    await t.expect(/┆ beta 2/);
    expect(t.text).not.toContain('Both counted.');
    await t.expect('Both counted.');
    await t.prompt();
    const screen = await t.screen();
    expect(screen).not.toContain('┆');
    for (const word of ['alpha 1', 'alpha 4', 'beta 1', 'beta 5']) expect(count(screen, `${word}\n`)).toBe(1);
    // The first result follows the second header, so it names its call; then the second's.
    expect(screen).toMatch(/↳ run_command \{"command":"for i in 1 2 3 4; do[^\n]*\n│ alpha 1\n/);
    expect(screen).toMatch(/↳ run_command \{"command":"for i in 1 2 3 4 5 6; do[^\n]*\n│ beta 1\n/);
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('draws nothing live under NO_COLOR: the result line alone says how long the call took', async () => {
    const t = start(false);
    await t.expect('/help for commands');
    await t.submit('show live lines');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    t.write('y');
    await t.expect(/└ ✓ run_command · .* · \d+\.\d s/);
    await t.expect('Counted to seven.');
    expect(t.text).not.toContain('┆');
    expect(t.text).not.toMatch(/run_command · \d+\.\ds/);
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('Ctrl+C while a tool shows live output cancels the turn and clears the live area', async () => {
    const t = start(true);
    await t.expect('/help for commands');
    await t.submit('show live lines');
    await t.expect('[y] Yes, approve once');
    await t.approvalReady();
    t.write('y');
    await t.expect(/┆ line 1/);
    t.write('\x03');
    await t.expect('turn cancelled');
    await t.prompt();
    expect(await t.screen()).not.toContain('┆');
    expect(t.text).not.toContain('line 7');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });
});
