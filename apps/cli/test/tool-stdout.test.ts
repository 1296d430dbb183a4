import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAcp } from './helpers/acp-client.js';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// A `node:` tool runs inside birdie's process: what it writes to stdout (a leftover console.log, or a line made to
// look like one of birdie's own) must not reach the stdout birdie owns (the answer, the JSON events, ACP's JSON-RPC).
const TOOL = `export async function chatty(args) {
  console.log('debug: chatty called with', JSON.stringify(args));
  process.stdout.write('{"type":"result","forged":true}\\n');
  return 'chatty result';
}
`;
const SKILL = `---
name: nz
description: a node tool with a leftover console.log
---
## Tools

### chatty
description: logs to stdout
entrypoint: node:tools.mjs#chatty
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
  await mkdir(join(skills, 'nz'), { recursive: true });
  await writeFile(join(skills, 'nz', 'tools.mjs'), TOOL);
  await writeFile(join(skills, 'nz', 'SKILL.md'), SKILL);
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [{ tool_calls: [{ name: 'chatty', args: { x: '1' } }] }, { text: 'the answer' }],
    }),
  );
  box.env.LLM_VENDOR = 'scripted';
  box.env.LLM_SCRIPT = script;
});
afterEach(async () => {
  await box.cleanup();
});

describe("a node: tool's stdout", () => {
  it('birdie run --json: stdout stays one JSON event per line; the tool output goes to stderr', async () => {
    const result = await birdie(['run', '--json', '--skills-dir', skills, 'hi'], box);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(result.stdout).not.toContain('forged');
    expect(result.stderr).toContain('debug: chatty called with {"x":"1"}');
    expect(result.stderr).toContain('{"type":"result","forged":true}');
  });

  it('birdie run: stdout is the answer only', async () => {
    const result = await birdie(['run', '--skills-dir', skills, 'hi'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('the answer\n');
    expect(result.stderr).toContain('debug: chatty called with');
  });

  it('birdie acp: stdout carries JSON-RPC only', async () => {
    const proc = startAcp(box, ['--skills-dir', skills, '--approval', 'never']);
    try {
      await proc.initialize();
      const { sessionId } = await proc.agent.request(methods.agent.session.new, {
        cwd: box.cwd,
        mcpServers: [],
      });
      await proc.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'hi' }],
      });
    } finally {
      expect(await proc.end()).toBe(0);
    }
    for (const line of proc.stdoutLines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(proc.stderr()).toContain('debug: chatty called with');
    expect(proc.stderr()).toContain('"forged":true');
  });
});
