import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scripted, TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('keys.json'));

const start = (args: string[] = []) => repl.start(['--skills-dir', TEST_SKILLS, ...args]);

/** `birdie config set KEY VALUE` through the compiled CLI, as a user types it. */
async function configSet(key: string, value: string): Promise<void> {
  const t = repl.start(['config', 'set', key, value]);
  expect(await t.exited).toBe(0);
}

describe('approval and tool output modes in the REPL (compiled CLI, real terminal)', {
  timeout: 60_000,
}, () => {
  it('--approval never runs a tool that asks under the default mode, with no question', async () => {
    const t = start(['--approval', 'never']);
    await t.expect('/help for commands');
    await t.submit('touch it');
    await t.expect('⚙ run_command (raw-shell) {"command":"touch touched.txt"}');
    await t.expect('Touched.');
    expect(t.text).not.toContain('needs approval');
    expect((await stat(join(repl.box.cwd, 'touched.txt'))).isFile()).toBe(true);
    await t.submit('/approval');
    await t.expect('approval: never');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('--approval always asks before a tool that never asks otherwise', async () => {
    const t = start(['--approval', 'always', '--enable', 'echoer']);
    await t.expect('/help for commands');
    await t.submit('shout it');
    await t.expect('shout (echoer) needs approval');
    expect(t.text).not.toContain('KEYS TEST'); // nothing ran before the answer
    await t.approvalReady();
    t.write('y');
    await t.expect('│ KEYS TEST');
    await t.expect('Shouted.');
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  const countInRepl = async (colors = false) => {
    const t = repl.start(['--skills-dir', TEST_SKILLS, '--approval', 'never'], { colors });
    await t.expect('/help for commands');
    await t.submit('count to twelve');
    await t.expect('Counted.');
    await t.expect(/spent: ↑\d+ ↓\d+ tok/); // the turn is over: the status line is drawn
    const screen = await t.screen();
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    const call = screen.slice(screen.indexOf('⚙ run_command'), screen.indexOf('Counted.'));
    return call.split('\n').filter(Boolean);
  };
  const header = '⚙ run_command (raw-shell) {"command":"seq 101 112"}';
  const numbers = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `│ ${from + i}`);

  for (const colors of [false, true]) {
    const where = colors ? 'with colours (the live area replaced)' : 'with NO_COLOR';
    it(`tool_output short (the default) shows the first lines of a result and how many more, ${where}`, async () => {
      const lines = await countInRepl(colors);
      expect(lines[0]).toBe(header);
      expect(lines.slice(1, -1)).toEqual(numbers(101, 105));
      expect(lines.at(-1)).toMatch(/^└ ✓ run_command · 12 lines, … 7 more lines · \d/);
    });

    it(`tool_output full (birdie config set) shows every line of a result, ${where}`, async () => {
      await configSet('tool_output', 'full');
      const lines = await countInRepl(colors);
      expect(lines[0]).toBe(header);
      expect(lines.slice(1, -1)).toEqual(numbers(101, 112));
      expect(lines.at(-1)).toMatch(/^└ ✓ run_command · 12 lines · \d/);
    });

    it(`tool_output off (birdie config set) shows the call and its line count only, ${where}`, async () => {
      await configSet('tool_output', 'off');
      const lines = await countInRepl(colors);
      expect(lines[0]).toBe(header);
      expect(lines.slice(1)).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^└ ✓ run_command · 12 lines · \d/);
    });
  }
});
