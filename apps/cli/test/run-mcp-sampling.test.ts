import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, scripted } from './helpers/env.js';

const exec = promisify(execFile);

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox(scripted('mcp-sampling.json'));
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'everything'), { recursive: true });
  await writeFile(
    join(skills, 'everything', 'SKILL.md'),
    `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`,
  );
});
afterEach(async () => {
  await box.cleanup();
});

async function birdie(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: box.env, cwd: box.cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const events = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('birdie run and an MCP server that asks for sampling (compiled CLI, server-everything)', {
  timeout: 90_000,
}, () => {
  it('refuses the request without --yes: nothing is sent to the model, the run goes on', async () => {
    const result = await birdie(['run', 'sample a haiku', '--json', '--skills-dir', skills]);
    expect(result.code, result.stderr).toBe(0);
    const all = events(result.stdout);
    expect(all).toContainEqual(expect.objectContaining({ type: 'sampling-refused', server: 'everything' }));
    const end = all.find((e) => e.type === 'tool-end');
    expect(end?.ok).toBe(false);
    expect(String(end?.output)).toContain('declined');
    expect(result.stdout).not.toContain('wings over water');
    // Two model calls, both the turn's.
    expect(all.filter((e) => e.type === 'usage')).toHaveLength(2);
  });

  it('with --yes the model answers the server, and the tokens of that call count in the run', async () => {
    const result = await birdie(['run', 'sample a haiku', '--json', '--yes', '--skills-dir', skills]);
    expect(result.code, result.stderr).toBe(0);
    const all = events(result.stdout);
    const end = all.find((e) => e.type === 'tool-end');
    expect(end?.ok).toBe(true);
    expect(String(end?.output)).toContain('wings over water');
    const usage = all.filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(3);
    const done = all.at(-1) as { inputTokens: number; outputTokens: number };
    expect(done.inputTokens).toBe(usage.reduce((sum, e) => sum + Number(e.inputTokens), 0));
    expect(done.outputTokens).toBe(usage.reduce((sum, e) => sum + Number(e.outputTokens), 0));
    // The run log holds the same totals.
    const logs = await birdie(['logs', '--json']);
    expect(logs.code, logs.stderr).toBe(0);
    const [run] = events(logs.stdout) as Array<{ inputTokens: number; outputTokens: number }>;
    expect(run?.inputTokens).toBe(done.inputTokens);
    expect(run?.outputTokens).toBe(done.outputTokens);
  });
});
