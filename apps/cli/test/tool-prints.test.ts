import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// `birdie tool` is how a skill's author tests a tool while writing it. What a `python:` function prints (and what a
// sandboxed `node:` function logs) is not its result: the runner sends it to stderr, and `birdie tool` showed it
// nowhere (stop 69's report), so print-debugging a tool printed nothing at all.
const PYTHON = `import sys

def chatty(x=None):
    print("debug: chatty printed", x)
    print("a warning", file=sys.stderr)
    return "chatty result"
`;
const NODE = `export async function chatty(args) {
  console.log('debug: node chatty logged', args.x);
  return 'node result';
}
`;
const SKILL = `---
name: pz
description: tools that print while they run
---
## Tools

### py_chatty
description: prints
entrypoint: python:tools.chatty
schema:
  type: object
  properties:
    x: { type: string }

### node_chatty
description: logs
entrypoint: node:tools.mjs#chatty
sandbox: true
schema:
  type: object
  properties:
    x: { type: string }

### bash_chatty
description: prints on both streams
entrypoint: bash:echo out {x}; echo err {x} >&2
schema:
  type: object
  properties:
    x: { type: string }
`;

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'pz'), { recursive: true });
  await writeFile(join(skills, 'pz', 'tools.py'), PYTHON);
  await writeFile(join(skills, 'pz', 'tools.mjs'), NODE);
  await writeFile(join(skills, 'pz', 'SKILL.md'), SKILL);
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie tool: what a tool prints while it runs', () => {
  it('python: print() goes to stderr, the result alone to stdout', async () => {
    const result = await birdie(['tool', 'py_chatty', '--skills-dir', skills, '--args', '{"x":"2"}'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('chatty result\n');
    expect(result.stderr).toContain('debug: chatty printed 2\n');
    expect(result.stderr).toContain('a warning\n');
  });

  it("a sandboxed node: tool's console.log goes to stderr, the result alone to stdout", async () => {
    const result = await birdie(['tool', 'node_chatty', '--skills-dir', skills, '--args', '{"x":"3"}'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('node result\n');
    expect(result.stderr).toContain('debug: node chatty logged 3\n');
  });

  it('bash: its output is its result, printed once on stdout (not repeated on stderr)', async () => {
    const result = await birdie(['tool', 'bash_chatty', '--skills-dir', skills, '--args', '{"x":"4"}'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('out 4');
    expect(result.stdout).toContain('err 4');
    expect(result.stderr).not.toContain('out 4');
    expect(result.stderr).not.toContain('err 4');
  });
});
