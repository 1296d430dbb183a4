import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { StopReason, type ToolJournal, UNANSWERED_APPROVAL_RESULT } from '../src/index.js';
import {
  agentSetup,
  callTools,
  collect,
  ofType,
  stringArg,
  toolMessages,
  toolSkill,
  useCleanups,
  waitFor,
} from './helpers.js';

const files = {
  'work/SKILL.md': toolSkill('work', [
    { name: 'probe', entrypoint: 'bash:test -f {marker} && echo recorded', schema: stringArg('marker') },
    { name: 'touch', entrypoint: 'bash:touch {file}', schema: stringArg('file') },
    { name: 'linger', entrypoint: 'bash:touch {file}; sleep 30', schema: stringArg('file') },
    {
      name: 'wipe',
      entrypoint: 'bash:rm -f {file}',
      schema: stringArg('file'),
      extra: 'approval: required\n',
    },
  ]),
};

/** A journal in memory; `started` also drops a marker file, so a tool can see whether it was recorded first. */
function memoryJournal(dir: string, fail = false) {
  const started = new Map<string, { name: string; skill?: string }>();
  const finished = new Map<string, { ok: boolean; truncated: boolean; error?: string }>();
  const journal: ToolJournal = {
    started(call) {
      if (fail) throw new Error('disk full');
      started.set(call.id, { name: call.name, ...(call.skill ? { skill: call.skill } : {}) });
      writeFileSync(join(dir, `started-${call.id}`), '');
    },
    finished(call) {
      finished.set(call.id, {
        ok: call.ok,
        truncated: call.truncated,
        ...(call.error !== undefined ? { error: call.error } : {}),
      });
    },
    startedAmong(ids) {
      return new Set(ids.filter((id) => started.has(id)));
    },
  };
  return { journal, started, finished };
}

const fixture = agentSetup(useCleanups());

describe('the tool journal', () => {
  it('records a call before its process starts, and its end after', async () => {
    const { fx, model, agent } = await fixture(files);
    const { journal, started, finished } = memoryJournal(fx.dir.path);
    model
      .respond(callTools([{ name: 'probe', args: { marker: join(fx.dir.path, 'started-p1') }, id: 'p1' }]))
      .respond(new AIMessage('done'));
    await collect(agent.stream('go', { threadId: 't1', journal }));
    const [result] = await toolMessages(agent, 't1');
    expect(result?.content).toBe('recorded\n');
    expect(started.get('p1')).toEqual({ name: 'probe', skill: 'work' });
    expect(finished.get('p1')).toEqual({ ok: true, truncated: false });
  });

  it('does not run a call whose start cannot be recorded', async () => {
    const { fx, model, agent } = await fixture(files);
    const { journal } = memoryJournal(fx.dir.path, true);
    const file = join(fx.dir.path, 'effect');
    model.respond(callTools([{ name: 'touch', args: { file }, id: 'c1' }])).respond(new AIMessage('ok'));
    const events = await collect(agent.stream('go', { threadId: 't1', journal }));
    expect(existsSync(file)).toBe(false);
    expect(ofType(events, 'tool-start')).toEqual([]);
    const [result] = await toolMessages(agent, 't1');
    expect(result?.status).toBe('error');
    expect(result?.content).toContain('its start could not be recorded (disk full)');
  });

  it('repairs a call that never started as "not executed"; one cancelled while it ran is answered as cancelled', async () => {
    const { fx, model, agent } = await fixture(files);
    const { journal } = memoryJournal(fx.dir.path);
    const file = (name: string) => join(fx.dir.path, name);
    // A call left waiting for approval never starts; a call cancelled while it runs did start.
    model
      .respond(callTools([{ name: 'wipe', args: { file: file('keep') }, id: 'w1' }]))
      .respond(new AIMessage('fine'))
      .respond(callTools([{ name: 'linger', args: { file: file('lingered') }, id: 'l1' }]))
      .respond(new AIMessage('checked'));
    await collect(agent.stream('wipe it', { threadId: 't1', journal }));
    await collect(agent.stream('never mind', { threadId: 't1', journal }));
    const controller = new AbortController();
    const running = collect(agent.stream('linger', { threadId: 't1', journal, signal: controller.signal }));
    await waitFor(() => (existsSync(file('lingered')) ? true : undefined));
    controller.abort();
    expect(ofType(await running, 'done')[0]?.status).toBe('aborted');
    await collect(agent.stream('what happened?', { threadId: 't1', journal }));
    const results = (await agent.getState('t1')).messages.filter((m): m is ToolMessage =>
      ToolMessage.isInstance(m),
    );
    expect(results.map((m) => [m.tool_call_id, m.content])).toEqual([
      // Left waiting for approval: it never started (the journal says so too; this process also saw the question).
      ['w1', UNANSWERED_APPROVAL_RESULT],
      // Cancelled while it ran: answered at once as cancelled by the user (a crash is left to the repair).
      ['l1', expect.stringMatching(/^\[Cancelled by the user while it ran/)],
    ]);
  });

  // Exploratory report (server drain): a call whose process the cancel stopped stayed `started` in the journal
  // ("result unknown") when the run's end came first, though its process had ended: its end is recorded before the
  // run ends.
  it('a call a cancel stopped is journaled as ended, with why, before the run ends', async () => {
    const { fx, model, agent } = await fixture(files);
    const { journal, finished } = memoryJournal(fx.dir.path);
    const file = join(fx.dir.path, 'lingered');
    model.respond(callTools([{ name: 'linger', args: { file }, id: 'l1' }])).respond(new AIMessage('ok'));
    const controller = new AbortController();
    const running = collect(agent.stream('linger', { threadId: 't1', journal, signal: controller.signal }));
    await waitFor(() => (existsSync(file) ? true : undefined));
    controller.abort(new Error('cancelled by the user'));
    expect(ofType(await running, 'done')[0]?.status).toBe('aborted');
    expect(finished.get('l1')).toEqual({
      ok: false,
      truncated: false,
      error: expect.stringContaining('was cancelled: cancelled by the user'),
    });
  });

  it("the answer of a call a stop cut off says what stopped it: the abort's reason", async () => {
    const { fx, model, agent } = await fixture(files);
    const { journal, finished } = memoryJournal(fx.dir.path);
    const file = join(fx.dir.path, 'lingered');
    model.respond(callTools([{ name: 'linger', args: { file }, id: 'l1' }])).respond(new AIMessage('ok'));
    const controller = new AbortController();
    const running = collect(agent.stream('linger', { threadId: 't1', journal, signal: controller.signal }));
    await waitFor(() => (existsSync(file) ? true : undefined));
    controller.abort(new StopReason('the server is shutting down', 'Stopped because the server shut down'));
    const events = await running;
    const shutDown = /^\[Stopped because the server shut down while it ran, before it printed anything/;
    expect(ofType(events, 'tool-end')).toEqual([
      expect.objectContaining({
        id: 'l1',
        outcome: 'cancelled',
        stopNote: 'Stopped because the server shut down',
        output: expect.stringMatching(shutDown),
      }),
    ]);
    const [result] = await toolMessages(agent, 't1');
    expect(result?.content).toMatch(shutDown);
    expect(finished.get('l1')?.error).toContain('was cancelled: the server is shutting down');
  });
});
