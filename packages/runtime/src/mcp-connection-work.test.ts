import { describe, expect, it } from 'vitest';
import { connectionWork } from './mcp-connection-work.js';

describe('connectionWork', () => {
  it('lets go once the connection ended and its last work settled, and only once', async () => {
    let released = 0;
    const work = connectionWork(() => released++);
    let finish!: () => void;
    const running = work.track(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(work.busy).toBe(true);
    work.end();
    expect(work.ended).toBe(true);
    expect(released).toBe(0); // a request still runs: it could read the state back in
    finish();
    await running;
    expect(work.busy).toBe(false);
    expect(released).toBe(1);
    await work.track(async () => undefined);
    work.end();
    expect(released).toBe(1);
  });

  it('lets go at once when nothing runs, and counts work that fails', async () => {
    let released = 0;
    const work = connectionWork(() => released++);
    await expect(work.track(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(work.busy).toBe(false);
    expect(released).toBe(0);
    work.end();
    expect(released).toBe(1);
  });
});
