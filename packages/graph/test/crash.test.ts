import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, type Store } from '@birdie/store';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { createAgent, UNKNOWN_TOOL_RESULT } from '../src/index.js';
import {
  alive,
  collect,
  ofType,
  readPid,
  skillsFixture,
  stringArg,
  toolSkill,
  useCleanups,
  waitFor,
} from './helpers.js';

const child = new URL('./fixtures/crash-child.mjs', import.meta.url).pathname;
// Child processes load LangGraph and SQLite from scratch; on a busy machine that alone can take seconds.
const SLOW = 45_000;
const cleanups = useCleanups();

/** Starts a birdie process; resolves with it once its output contains `marker` (or a file appears). */
function startChild(args: string[]) {
  const proc = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  cleanups.push(async () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    await exited;
  });
  return {
    output: () => out,
    errors: () => err,
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

const counterSkill = toolSkill('counter', [
  // Appends one line per run, then lingers: a crash during the sleep leaves the call without a result.
  {
    name: 'count',
    entrypoint: 'bash:echo run >> {file}; echo $$ > {file}.pid; sleep {seconds}',
    schema: stringArg('file', 'seconds'),
    extra: 'approval: required\n',
  },
  { name: 'work', entrypoint: 'bash:echo $$ > {pidfile}; sleep 30', schema: stringArg('pidfile') },
]);

async function fixture() {
  const fx = await skillsFixture({ 'counter/SKILL.md': counterSkill });
  const db = join(fx.dir.path, 'birdie.db');
  const stores: Store[] = [];
  cleanups.push(async () => {
    for (const s of stores) await s.close();
    await fx.dir.cleanup();
  });
  const reopen = (model = fakeModel()) => {
    const store = openStore({ file: db });
    stores.push(store);
    const agent = createAgent({
      model,
      registry: fx.registry,
      policy: fx.policy,
      checkpointer: store.checkpointer,
      options: { cwd: fx.dir.path },
    });
    cleanups.push(() => agent.close());
    return { agent, model };
  };
  return { fx, db, reopen, path: (name: string) => join(fx.dir.path, name) };
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {}
}

describe('crash recovery with a SQLite checkpointer', { timeout: 120_000 }, () => {
  it('repairs a call whose process died between the AIMessage and the ToolMessage', async () => {
    const { fx, db, reopen, path } = await fixture();
    const pidfile = path('work.pid');
    const proc = startChild([
      db,
      fx.dir.path,
      's1',
      'stream',
      JSON.stringify([{ id: 'w1', name: 'work', args: { pidfile } }]),
    ]);
    const toolPid = await waitFor(readPid(pidfile), SLOW);
    await proc.kill();
    killGroup(toolPid);
    expect(proc.output()).not.toContain('END');

    const { agent, model } = reopen(fakeModel().respond(new AIMessage('recovered')));
    const before = await agent.getState('s1');
    expect(before.messages.map((m) => m.type)).toEqual(['human', 'ai']);
    const events = await collect(agent.stream('continue', { threadId: 's1' }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    // The model saw a history a provider accepts: the call answered by a placeholder, right after it.
    expect(model.calls[0]?.messages.slice(1).map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human']);
    const after = await agent.getState('s1');
    expect(after.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human', 'ai']);
    const placeholder = after.messages[2] as ToolMessage;
    expect(placeholder).toMatchObject({
      tool_call_id: 'w1',
      status: 'error',
      content: UNKNOWN_TOOL_RESULT,
    });
  });

  it('asks again after a crash while waiting for approval, and runs the tool exactly once', async () => {
    const { fx, db, reopen, path } = await fixture();
    const file = path('count.log');
    const call = [{ id: 'a1', name: 'count', args: { file, seconds: '0' } }];
    const proc = startChild([db, fx.dir.path, 's1', 'stream', JSON.stringify(call)]);
    await waitFor(() => (proc.output().includes('END') ? true : undefined), SLOW);
    expect(proc.output()).toContain('"approval-request"');
    await proc.kill();
    expect(existsSync(file)).toBe(false);

    const { agent } = reopen(fakeModel().respond(new AIMessage('done')));
    const state = await agent.getState('s1');
    expect(state.pendingApprovals.map((r) => [r.id, r.tool])).toEqual([['a1', 'count']]);
    const events = await collect(agent.resume('s1', { a1: { type: 'approve' } }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(readFileSync(file, 'utf8')).toBe('run\n');
    await expect(collect(agent.resume('s1', { a1: { type: 'approve' } }))).rejects.toMatchObject({
      code: 'nothing-to-resume',
    });
    expect(readFileSync(file, 'utf8')).toBe('run\n');
  });

  it('binds a decision to the call the user saw, across a restart between the question and the answer', async () => {
    const { fx, db, reopen, path } = await fixture();
    const harmless = path('harmless.log');
    const pwned = path('PWNED');
    // Two calls of one streamed reply share the id "dup": the user approves the first and rejects the second.
    const calls = [
      { id: 'dup', name: 'count', args: { file: harmless, seconds: '0' } },
      { id: 'dup', name: 'count', args: { file: pwned, seconds: '0' } },
    ];
    const proc = startChild([db, fx.dir.path, 's1', 'stream-scripted', JSON.stringify(calls)]);
    await waitFor(() => (proc.output().includes('END') ? true : undefined), SLOW);
    await proc.kill();

    const { agent } = reopen(fakeModel().respond(new AIMessage('done')));
    const pending = (await agent.getState('s1')).pendingApprovals;
    expect(pending.map((r) => r.args.file)).toEqual([harmless, pwned]);
    expect(new Set(pending.map((r) => r.id)).size).toBe(2);
    const state = await agent.getState('s1');
    const ai = state.messages.at(-1) as AIMessage;
    expect(ai.tool_calls?.map((c) => c.id)).toEqual(pending.map((r) => r.id));
    const [first, second] = pending;
    await collect(agent.resume('s1', { [first!.id]: { type: 'approve' }, [second!.id]: { type: 'reject' } }));
    expect(readFileSync(harmless, 'utf8')).toBe('run\n');
    expect(existsSync(pwned)).toBe(false);
  });

  it('never runs an approved call twice when the process dies while it runs', async () => {
    const { fx, db, reopen, path } = await fixture();
    const file = path('count.log');
    const call = [{ id: 'a1', name: 'count', args: { file, seconds: '30' } }];
    const first = startChild([db, fx.dir.path, 's1', 'stream', JSON.stringify(call)]);
    await waitFor(() => (first.output().includes('END') ? true : undefined), SLOW);
    await first.kill();

    const second = startChild([db, fx.dir.path, 's1', 'resume', JSON.stringify({ a1: { type: 'approve' } })]);
    const toolPid = await waitFor(readPid(`${file}.pid`), SLOW);
    await second.kill();
    killGroup(toolPid);
    await waitFor(() => (alive(toolPid) ? undefined : true));
    expect(readFileSync(file, 'utf8')).toBe('run\n');

    const { agent } = reopen(fakeModel().respond(new AIMessage('moving on')));
    const state = await agent.getState('s1');
    expect(state.pendingApprovals).toEqual([]);
    await expect(collect(agent.resume('s1', { a1: { type: 'approve' } }))).rejects.toMatchObject({
      code: 'nothing-to-resume',
    });
    await collect(agent.stream('what happened?', { threadId: 's1' }));
    expect(readFileSync(file, 'utf8')).toBe('run\n');
    const messages = (await agent.getState('s1')).messages;
    const result = messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(result?.content).toBe(UNKNOWN_TOOL_RESULT);
  });
});
