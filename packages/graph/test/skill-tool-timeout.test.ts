import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSkillTool, TOOL_LIMITS } from '../src/tools.js';

// Which timeout a call is armed with, read from the timer itself (no waiting on the clock).
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'graph-timeout-'));
  await writeFile(join(dir, 'tools.mjs'), 'export async function quick() { return "done"; }\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const tool: SkillTool = {
  name: 'quick',
  description: 'Quick',
  entrypoint: 'node:tools.mjs#quick',
  schema: { type: 'object', properties: {} },
  line: 1,
};

/** The delays of the timers armed while the call ran. */
async function armedDelays(declared: SkillTool): Promise<number[]> {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  const built = createSkillTool({ name: 'quick', dir } as Skill, declared, TOOL_LIMITS).build({});
  if (!built.ok) throw new Error(built.error);
  const result = await built.invocation.run({ cwd: dir });
  expect(result.content).toBe('done');
  return spy.mock.calls.map((call) => call[1] ?? 0);
}

describe("a skill tool's timeout", () => {
  it('is the documented 60 s when the tool declares none', async () => {
    expect(TOOL_LIMITS.timeoutMs).toBe(60_000);
    expect(await armedDelays(tool)).toContain(60_000);
  });

  it("is the tool's own `timeout` when it declares one", async () => {
    expect(await armedDelays({ ...tool, timeout: 5 })).toContain(5_000);
  });

  it('never exceeds what a timer holds (a longer one would fire at once)', async () => {
    const delays = await armedDelays({ ...tool, timeout: 2_592_000 });
    expect(delays).toContain(2 ** 31 - 1);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2 ** 31 - 1);
  });
});
