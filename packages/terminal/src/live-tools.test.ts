import { Terminal as Emulator } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import type { Output } from './output.js';
import { LiveTools } from './live-tools.js';

/** A fake stdout whose bytes go through a terminal emulator: what a user would see, redraws applied. */
function terminal(columns: number, rows = 24) {
  const emulator = new Emulator({ cols: columns, rows, convertEol: true, allowProposedApi: true });
  const out = {
    columns,
    rows,
    isTTY: true,
    write: (text: string) => {
      emulator.write(text);
      return true;
    },
  } as unknown as Output;
  const screen = async () => {
    await new Promise<void>((resolve) => emulator.write('', resolve));
    const buffer = emulator.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines;
  };
  return { out, screen };
}

const plain = (_format: unknown, text: string) => text;

describe('LiveTools', () => {
  it('cuts long output lines and headers to the terminal width, so the area never wraps', async () => {
    const t = terminal(30);
    let now = 1_000;
    const live = new LiveTools({ out: t.out, style: plain as never, now: () => now });
    live.before({ type: 'tool-start', id: 'a', name: 'a_tool_with_a_rather_long_name', args: {} });
    live.after();
    live.before({
      type: 'tool-output',
      id: 'a',
      name: 'x',
      stream: 'stdout',
      text: `${'x'.repeat(100)}\nshort\n`,
    });
    now = 3_250;
    live.draw();
    const lines = await t.screen();
    expect(lines.every((line) => line.length <= 29)).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(/^⠙ a_tool_with_a_rathe?r?… · 2\.3s$/),
      `┆ ${'x'.repeat(26)}…`,
      '┆ short',
    ]);
    live.stop();
  });

  it("keeps a task call's progress on screen while its subagent writes text (review)", async () => {
    const t = terminal(60);
    let now = 0;
    const live = new LiveTools({ out: t.out, style: plain as never, now: () => now });
    live.before({ type: 'tool-start', id: 't', name: 'task', args: {}, agent: ['lead'] });
    live.after();
    live.before({ type: 'token', text: 'notes', agent: ['lead', 'worker'] } as never);
    live.after();
    now = 2_000;
    live.draw();
    expect((await t.screen()).join('\n')).toMatch(/task · 2\.0s/);
    live.stop();
  });

  it('fits a short window: calls beyond its height are counted, not drawn', async () => {
    const t = terminal(60, 6);
    const live = new LiveTools({ out: t.out, style: plain as never, now: () => 0 });
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
      live.before({ type: 'tool-start', id, name: `tool_${id}`, args: {} });
    live.after();
    const lines = await t.screen();
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(lines.at(-1)).toBe('… and 4 more running');
    live.stop();
    expect(await t.screen()).toEqual([]);
  });

  it('erases itself before anything else is printed, and for good when the call ends', async () => {
    const t = terminal(60);
    const live = new LiveTools({ out: t.out, style: plain as never, now: () => 0 });
    t.out.write('⚙ run {"x":1}\n');
    live.before({ type: 'tool-start', id: 'a', name: 'run', args: { x: 1 } });
    live.after();
    live.before({ type: 'tool-output', id: 'a', name: 'run', stream: 'stdout', text: 'one\ntwo\n' });
    live.after();
    expect(await t.screen()).toEqual(['⚙ run {"x":1}', '⠙ run · 0.0s', '┆ one', '┆ two']);
    live.before({
      type: 'tool-end',
      id: 'a',
      name: 'run',
      ok: true,
      output: 'one\ntwo\n',
      truncated: false,
      durationMs: 5,
    });
    t.out.write('│ one\n│ two\n└ ✓ run\n');
    live.after();
    expect(await t.screen()).toEqual(['⚙ run {"x":1}', '│ one', '│ two', '└ ✓ run']);
    expect(live.active).toBe(false);
  });
});
