import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OutputChunk, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

describe('live output (RunOptions.onOutput)', () => {
  it('bash: hands each line to the listener while the command still runs, and the result stays the same', async () => {
    const ep = resolveEntrypoint('bash:for i in 1 2 3; do echo line $i; sleep 0.2; done; echo oops >&2', {
      skillDir: dir,
    });
    const chunks: OutputChunk[] = [];
    let seenBeforeExit = '';
    const running = ep.run({}, { onOutput: (chunk) => chunks.push(chunk) });
    // Read what arrived before the command ended: the first line must be there already.
    for (let k = 0; k < 100 && !chunks.some((c) => c.text.includes('line 1')); k++)
      await new Promise((r) => setTimeout(r, 20));
    seenBeforeExit = chunks.map((c) => c.text).join('');
    const result = await running;
    expect(seenBeforeExit).toContain('line 1');
    expect(seenBeforeExit).not.toContain('line 3');
    expect(result).toEqual({ output: 'line 1\nline 2\nline 3\noops\n', exitCode: 0, truncated: false });
    expect(
      chunks
        .filter((c) => c.stream === 'stdout')
        .map((c) => c.text)
        .join(''),
    ).toBe('line 1\nline 2\nline 3\n');
    expect(
      chunks
        .filter((c) => c.stream === 'stderr')
        .map((c) => c.text)
        .join(''),
    ).toBe('oops\n');
  });

  it('bash: a multibyte character split across two writes reaches the listener whole', async () => {
    // "é" is C3 A9 and "😀" F0 9F 98 80: each is written in two parts, with a pause between them.
    const ep = resolveEntrypoint(
      "bash:printf 'caf\\303'; sleep 0.2; printf '\\251 \\360\\237'; sleep 0.2; printf '\\230\\200\\n'",
      { skillDir: dir },
    );
    const chunks: OutputChunk[] = [];
    const result = await ep.run({}, { onOutput: (chunk) => chunks.push(chunk) });
    expect(result.output).toBe('café 😀\n');
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.text).not.toContain('\uFFFD');
    expect(chunks.map((c) => c.text).join('')).toBe('café 😀\n');
  });

  it('bash: the listener sees everything the command printed even when the result is capped', async () => {
    const ep = resolveEntrypoint('bash:seq 1 2000', { skillDir: dir });
    let live = '';
    const result = await ep.run({}, { maxOutputBytes: 200, onOutput: (c) => (live += c.text) });
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThan(300);
    expect(live.split('\n').at(-2)).toBe('2000');
  });

  it('bash: a listener that throws does not break the call', async () => {
    const ep = resolveEntrypoint('bash:echo fine', { skillDir: dir });
    const result = await ep.run(
      {},
      {
        onOutput: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(result.output).toBe('fine\n');
  });

  it("python: the function's prints reach the listener as stderr; the JSON envelope never does", async () => {
    const skill = join(dir, 'py-live');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(skill, 'tools.py'),
      'import time\ndef run(n):\n    for i in range(n):\n        print(f"step {i}", flush=True)\n        time.sleep(0.1)\n    return "done"\n',
    );
    const ep = resolveEntrypoint('python:tools.run', { skillDir: skill });
    const chunks: OutputChunk[] = [];
    const result = await ep.run({ n: 3 }, { onOutput: (chunk) => chunks.push(chunk) });
    expect(result.output).toBe('done');
    expect(chunks.every((c) => c.stream === 'stderr')).toBe(true);
    expect(chunks.map((c) => c.text).join('')).toBe('step 0\nstep 1\nstep 2\n');
  });
});
