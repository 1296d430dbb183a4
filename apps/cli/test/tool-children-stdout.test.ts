import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report: a `node:` tool runs inside birdie's process, and a child process it starts with inherited stdio
// (`spawnSync(…, { stdio: 'inherit' })`, `execSync` the same) wrote into birdie's own stdout: `birdie run --json` got
// a bare line among its events. Its output goes where the tool's console.log goes: stderr (see tool-stdout.test.ts).
const TOOL = `import { execSync, spawnSync } from 'node:child_process';
export async function noisy() {
  spawnSync('echo', ['child of spawnSync'], { stdio: 'inherit' });
  execSync('echo child of execSync', { stdio: 'inherit' });
  return 'noisy result';
}
`;
const SKILL = `---
name: nc
description: a node tool whose child processes inherit stdio
---
## Tools

### noisy
description: starts children with inherited stdio
entrypoint: node:tools.mjs#noisy
schema:
  type: object
  properties: {}
`;

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'nc'), { recursive: true });
  await writeFile(join(skills, 'nc', 'tools.mjs'), TOOL);
  await writeFile(join(skills, 'nc', 'SKILL.md'), SKILL);
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({ replies: [{ tool_calls: [{ name: 'noisy', args: {} }] }, { text: 'the answer' }] }),
  );
  box.env.LLM_VENDOR = 'scripted';
  box.env.LLM_SCRIPT = script;
});
afterEach(async () => {
  await box.cleanup();
});

describe("a node: tool's child processes with inherited stdio", () => {
  it('birdie run --json: stdout stays one JSON event per line; the children print on stderr', async () => {
    const result = await birdie(['run', '--json', '--skills-dir', skills, 'hi'], box);
    expect(result.code).toBe(0);
    for (const line of result.stdout.trimEnd().split('\n'))
      expect(() => JSON.parse(line), line).not.toThrow();
    expect(result.stdout).not.toContain('child of');
    expect(result.stdout).toContain('noisy result');
    expect(result.stderr).toContain('child of spawnSync\n');
    expect(result.stderr).toContain('child of execSync\n');
  });

  it('birdie run: stdout is the answer only', async () => {
    const result = await birdie(['run', '--skills-dir', skills, 'hi'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('the answer\n');
    expect(result.stderr).toContain('child of spawnSync\n');
  });
});
