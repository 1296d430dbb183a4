import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAcp } from './helpers/acp-client.js';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// The answer of `birdie run` is the session agent's; a subagent's reply is the result of its `task` call.
let box: Sandbox;
let agents: string;
beforeEach(async () => {
  box = await sandbox();
  agents = join(box.dir.path, 'ag');
  await mkdir(agents);
  await writeFile(
    join(agents, 'boss.md'),
    '---\nname: boss\ndescription: delegates research to worker\nsubagents: [worker]\n---\nYou delegate.\n',
  );
  await writeFile(
    join(agents, 'worker.md'),
    '---\nname: worker\ndescription: answers a sub-question\n---\nYou work.\n',
  );
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { tool_calls: [{ name: 'task', args: { agent: 'worker', prompt: 'find X' } }] },
        { text: 'WORKER-NOTES' },
        { text: 'FINAL-ANSWER' },
      ],
    }),
  );
  box.env.LLM_VENDOR = 'scripted';
  box.env.LLM_SCRIPT = script;
});
afterEach(async () => {
  await box.cleanup();
});

describe("a subagent's reply", () => {
  it('birdie run --agent: stdout is the top-level answer; the reply shows under the task call on stderr', async () => {
    const result = await birdie(['run', '--agent', 'boss', '--agents-dir', agents, 'go'], box);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('FINAL-ANSWER\n');
    expect(result.stderr).toContain('WORKER-NOTES');
  });

  it('birdie run --json: the subagent tokens are kept, marked with their agent path', async () => {
    const result = await birdie(['run', '--json', '--agent', 'boss', '--agents-dir', agents, 'go'], box);
    expect(result.code).toBe(0);
    const tokens = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'token');
    expect(tokens.map((t) => [t.agent, t.text])).toEqual([
      [['boss', 'worker'], 'WORKER-NOTES'],
      [['boss'], 'FINAL-ANSWER'],
    ]);
  });

  it("birdie acp: the agent's message chunks are the top-level answer only", async () => {
    const proc = startAcp(box, ['--agent', 'boss', '--agents-dir', agents]);
    try {
      await proc.initialize();
      const { sessionId } = await proc.agent.request(methods.agent.session.new, {
        cwd: box.cwd,
        mcpServers: [],
      });
      await proc.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'go' }],
      });
    } finally {
      await proc.end();
    }
    const chunks = proc.log.flatMap((entry) =>
      entry.kind === 'update' &&
      entry.update.sessionUpdate === 'agent_message_chunk' &&
      entry.update.content.type === 'text'
        ? [entry.update.content.text]
        : [],
    );
    expect(chunks.join('')).toBe('FINAL-ANSWER');
  });
});
