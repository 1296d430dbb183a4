import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpProcess, startAcp, stopAcp } from './helpers/acp-client.js';
import { FIXTURES, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (acp), defect 3: a rejected promise a skill's `node:` tool left unhandled killed `birdie acp`
// (exit 1, a stack trace): every session's running turn died with it. A tool's stray failure is that tool call's
// failure (or, once the call is over, a line in the log); the process goes on serving.

const STRAY_SKILLS = join(FIXTURES, 'stray-skills');

let box: Sandbox;
const running: AcpProcess[] = [];
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  stopAcp(running);
  await box.cleanup();
});

async function script(replies: unknown[]): Promise<NodeJS.ProcessEnv> {
  const file = join(box.dir.path, 'script.json');
  await writeFile(file, JSON.stringify({ replies }));
  return { LLM_VENDOR: 'scripted', LLM_SCRIPT: file };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await pause(25);
  }
  throw new Error(`${what}: not after 30 s`);
}

/** The text of the last `tool_call_update` with a final status, per tool title's first word. */
function finalUpdates(proc: AcpProcess): Array<{ tool: string; status: string; text: string }> {
  const names = new Map<string, string>();
  const out: Array<{ tool: string; status: string; text: string }> = [];
  for (const entry of proc.log) {
    if (entry.kind !== 'update') continue;
    const u = entry.update;
    if (u.sessionUpdate === 'tool_call') names.set(u.toolCallId, u.title.split(' ')[0] ?? u.title);
    if (u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'))
      out.push({
        tool: names.get(u.toolCallId) ?? u.toolCallId,
        status: u.status,
        text: JSON.stringify(u.content ?? ''),
      });
  }
  return out;
}

describe('birdie acp survives what a node: tool leaves behind', { timeout: 90_000 }, () => {
  it("a stray rejection or throw fails that tool's call; another session's running turn goes on; a late one is logged", async () => {
    const started = join(box.dir.path, 'started');
    const release = join(box.dir.path, 'release');
    const trigger = join(box.dir.path, 'trigger');
    const env = await script([
      { match: 'slow', tool_calls: [{ name: 'gated_step', args: { started, release } }] },
      { match: 'slow', text: 'slow ok' },
      { match: 'reject', tool_calls: [{ name: 'stray_rejection', args: {} }] },
      { match: 'reject', text: 'reject ok' },
      { match: 'throw', tool_calls: [{ name: 'stray_throw', args: {} }] },
      { match: 'throw', text: 'throw ok' },
      { match: 'arm', tool_calls: [{ name: 'arm_late_failures', args: { trigger } }] },
      { match: 'arm', text: 'armed ok' },
      { match: 'still', text: 'still here' },
    ]);
    const proc = startAcp(box, ['--skills-dir', STRAY_SKILLS, '--approval', 'never'], env);
    running.push(proc);
    await proc.initialize();
    const newSession = async () =>
      (await proc.agent.request(methods.agent.session.new, { cwd: box.cwd, mcpServers: [] })).sessionId;
    const prompt = (sessionId: string, text: string) =>
      proc.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    const [a, b] = [await newSession(), await newSession()];

    // Session A's turn runs a tool that waits for the test: it is running while B's tools misbehave.
    const slow = prompt(a, 'slow');
    await until('the slow tool started', () => existsSync(started));

    expect(await prompt(b, 'reject')).toEqual({ stopReason: 'end_turn' });
    expect(await prompt(b, 'throw')).toEqual({ stopReason: 'end_turn' });
    expect(finalUpdates(proc)).toEqual([
      {
        tool: 'stray_rejection',
        status: 'failed',
        text: expect.stringContaining(
          'left a promise rejected that nothing handled: Error: stray rejection in tool',
        ),
      },
      {
        tool: 'stray_throw',
        status: 'failed',
        text: expect.stringContaining('threw from a callback: Error: stray throw in tool'),
      },
    ]);

    // A failure after the call is over fails nothing: it is logged, and the process goes on.
    expect(await prompt(b, 'arm')).toEqual({ stopReason: 'end_turn' });
    await writeFile(trigger, '');
    await until('the late failures logged', () => proc.stderr().includes('late throw in tool'));
    expect(await prompt(b, 'still')).toEqual({ stopReason: 'end_turn' });

    await writeFile(release, '');
    expect(await slow).toEqual({ stopReason: 'end_turn' });
    expect(finalUpdates(proc).map((u) => `${u.tool} ${u.status}`)).toEqual([
      'stray_rejection failed',
      'stray_throw failed',
      'arm_late_failures completed',
      'gated_step completed',
    ]);
    expect(await readFile(started, 'utf8')).toBe('started\n');

    const stderr = proc.stderr();
    expect(stderr).toMatch(/late rejection in tool/);
    expect(stderr).toMatch(/late throw in tool/);
    // Lines that say what happened, not stack traces.
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(await proc.end()).toBe(0);
  });
});
