import { describe, expect, it } from 'vitest';
import { LiveOutput } from './tool-live-output.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('LiveOutput', () => {
  it('sends the chunks of one tick as one piece per stream, in the order the streams spoke', async () => {
    const sent: Array<[string, string]> = [];
    const live = new LiveOutput((stream, text) => sent.push([stream, text]), 50);
    live.push({ stream: 'stderr', text: 'e1\n' });
    live.push({ stream: 'stdout', text: 'a' });
    live.push({ stream: 'stdout', text: 'b\n' });
    await sleep(10);
    expect(sent).toEqual([
      ['stderr', 'e1\n'],
      ['stdout', 'ab\n'],
    ]);
  });

  it('holds later chunks until the interval has passed, and close sends what is left at once', async () => {
    const sent: string[] = [];
    const live = new LiveOutput((_stream, text) => sent.push(text), 10_000);
    live.push({ stream: 'stdout', text: 'one\n' });
    await sleep(10);
    live.push({ stream: 'stdout', text: 'two\n' });
    live.push({ stream: 'stdout', text: 'three\n' });
    await sleep(10);
    expect(sent).toEqual(['one\n']);
    live.close();
    expect(sent).toEqual(['one\n', 'two\nthree\n']);
    live.push({ stream: 'stdout', text: 'late\n' });
    await sleep(10);
    expect(sent).toHaveLength(2);
  });

  it('keeps only the newest text of a piece, from a line start, never half a surrogate pair', () => {
    const sent: string[] = [];
    const live = new LiveOutput((_stream, text) => sent.push(text), 10_000, 10);
    live.push({ stream: 'stdout', text: 'x'.repeat(50) });
    live.push({ stream: 'stdout', text: 'abc\n12😀45' });
    live.close();
    expect(sent).toEqual(['12😀45']);
    const cut: string[] = [];
    const other = new LiveOutput((_stream, text) => cut.push(text), 10_000, 5);
    other.push({ stream: 'stdout', text: 'xxxxxxxx😀abcd' });
    other.close();
    expect(cut).toEqual(['abcd']);
  });
});
