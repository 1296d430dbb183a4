import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModel } from '@birdie/providers';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { openStore, type Store } from '@birdie/store';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { AgentError, createAgent } from '../src/index.js';
import {
  agentOn,
  agentSpec,
  callTools,
  collect,
  ofType,
  skillsFixture,
  stringArg,
  toolSkill,
  useCleanups,
} from './helpers.js';

const cleanups = useCleanups();

const notes = (description = 'Notes') =>
  toolSkill('notes', [
    {
      name: 'stamp',
      entrypoint: 'bash:printf "%s\\n" {line} >> stamps.txt',
      schema: stringArg('line'),
      extra: 'approval: required\n',
    },
    {
      name: 'wipe',
      entrypoint: 'bash:rm -f {file}',
      schema: stringArg('file'),
      extra: 'approval: required\n',
    },
  ]).replace('description: The notes skill', `description: ${description}`);

/**
 * A skills folder and a SQLite file on disk; `open()` is a new process as far as the session is concerned: a new
 * registry read from the folder, a new store on the same file, a new agent.
 */
async function world() {
  const dir = await makeTempDir('birdie-grants-');
  await writeTree(dir.path, { 'skills/notes/SKILL.md': notes() });
  cleanups.push(() => dir.cleanup());
  const open = async (...replies: AIMessage[]) => {
    const registry = await loadRegistry({ dirs: [join(dir.path, 'skills')] });
    const store: Store = openStore({ file: join(dir.path, 'birdie.db') });
    const model = fakeModel();
    for (const reply of replies) model.respond(reply);
    const agent = createAgent({
      model,
      registry,
      policy: new SkillPolicy(registry),
      checkpointer: store.checkpointer,
      options: { cwd: dir.path },
    });
    cleanups.push(async () => {
      await agent.close();
      await store.close();
    });
    return agent;
  };
  const stamps = () => readFileSync(join(dir.path, 'stamps.txt'), 'utf8');
  return { dir: dir.path, open, stamps };
}

describe('approving a tool for the session', () => {
  it('survives a new registry, store and agent on the same SQLite file; other tools still ask', async () => {
    const w = await world();
    const first = await w.open(
      callTools([{ name: 'stamp', args: { line: 'one' }, id: 'a1' }]),
      new AIMessage('stamped'),
    );
    const asked = await collect(first.stream('stamp one', { threadId: 's1' }));
    expect(ofType(asked, 'approval-request')[0]?.requests.map((r) => r.tool)).toEqual(['stamp']);
    const resumed = await collect(first.resume('s1', { a1: { type: 'approve', scope: 'session' } }));
    expect(ofType(resumed, 'done')[0]?.status).toBe('ok');
    // The call the user answered was asked about: it is not reported as approved by the session.
    expect(ofType(resumed, 'tool-approved')).toEqual([]);
    const [approval] = (await first.getState('s1')).sessionApprovals;
    expect(approval).toMatchObject({ tool: 'stamp', skill: 'notes' });
    expect(approval?.source).toMatch(/^sha256:[0-9a-f]{64}$/);
    await first.close();

    const second = await w.open(
      callTools([{ name: 'stamp', args: { line: 'two' }, id: 'b1' }]),
      callTools([{ name: 'wipe', args: { file: 'nothing' }, id: 'b2' }]),
      new AIMessage('done'),
    );
    const events = await collect(second.stream('stamp two, then wipe', { threadId: 's1' }));
    expect(ofType(events, 'tool-approved')).toEqual([
      { type: 'tool-approved', id: 'b1', name: 'stamp', skill: 'notes', scope: 'session' },
    ]);
    expect(w.stamps()).toBe('one\ntwo\n');
    // wipe, of the same skill, was never approved for the session: it asks.
    expect(ofType(events, 'approval-request')[0]?.requests.map((r) => r.tool)).toEqual(['wipe']);
    expect(ofType(events, 'done').at(-1)?.status).toBe('interrupted');
    // Another session of the same store starts without the approval.
    expect((await second.getState('s2')).sessionApprovals).toEqual([]);
  });

  it('asks again once the skill file that declared the tool was edited', async () => {
    const w = await world();
    const first = await w.open(
      callTools([{ name: 'stamp', args: { line: 'one' }, id: 'a1' }]),
      new AIMessage('ok'),
    );
    await collect(first.stream('stamp', { threadId: 's1' }));
    await collect(first.resume('s1', { a1: { type: 'approve', scope: 'session' } }));
    await first.close();

    writeFileSync(join(w.dir, 'skills/notes/SKILL.md'), notes('Notes, edited after the approval'));
    const second = await w.open(
      callTools([{ name: 'stamp', args: { line: 'two' }, id: 'b1' }]),
      new AIMessage('ok'),
    );
    const events = await collect(second.stream('stamp again', { threadId: 's1' }));
    expect(ofType(events, 'tool-approved')).toEqual([]);
    expect(ofType(events, 'approval-request')[0]?.requests.map((r) => r.id)).toEqual(['b1']);
    expect(w.stamps()).toBe('one\n');
    // Approving it again binds the approval to the edited file (the older entry for the tool is replaced).
    const before = (await second.getState('s1')).sessionApprovals;
    await collect(second.resume('s1', { b1: { type: 'approve', scope: 'session' } }));
    const after = (await second.getState('s1')).sessionApprovals;
    expect(after).toHaveLength(1);
    expect(after[0]?.source).not.toBe(before[0]?.source);
    expect(w.stamps()).toBe('one\ntwo\n');
  });

  it('approves once without a scope, and refuses a scope it does not know', async () => {
    const w = await world();
    const agent = await w.open(
      callTools([{ name: 'stamp', args: { line: 'one' }, id: 'a1' }]),
      new AIMessage('ok'),
    );
    await collect(agent.stream('stamp', { threadId: 's1' }));
    await expect(
      collect(agent.resume('s1', { a1: { type: 'approve', scope: 'forever' } as never })),
    ).rejects.toSatisfy((e) => e instanceof AgentError && e.code === 'unknown-decision');
    await collect(agent.resume('s1', { a1: { type: 'approve', scope: 'once' } }));
    expect((await agent.getState('s1')).sessionApprovals).toEqual([]);
  });
});

describe('approvals for the session and subagents', () => {
  it("an approval given to a subagent's question holds for the session, and the session's hold in later subagents", async () => {
    const fx = await skillsFixture({ 'notes/SKILL.md': notes() });
    const task = (id: string, prompt: string) => ({ name: 'task', id, args: { agent: 'helper', prompt } });
    const model = createScriptedModel([
      { match: '^first', tool_calls: [task('t1', 'stamp a')] },
      { match: '^stamp a', tool_calls: [{ name: 'stamp', id: 'x1', args: { line: 'a' } }] },
      { match: '^stamp a', text: 'stamped a' },
      { match: '^first', text: 'first done' },
      { match: '^second', tool_calls: [task('t2', 'stamp b')] },
      { match: '^stamp b', tool_calls: [{ name: 'stamp', id: 'y1', args: { line: 'b' } }] },
      { match: '^stamp b', text: 'stamped b' },
      { match: '^second', text: 'second done' },
      { match: '^third', tool_calls: [{ name: 'stamp', id: 'z1', args: { line: 'c' } }] },
      { match: '^third', text: 'third done' },
    ]);
    const agent = agentOn(cleanups, fx, model, [
      agentSpec('lead', { body: 'You lead.', subagents: ['helper'] }),
      agentSpec('helper', { body: 'You help.', skills: ['notes'] }),
    ]);
    const asked = await collect(agent.stream('first', { threadId: 's1', agent: 'lead' }));
    expect(ofType(asked, 'approval-request').flatMap((e) => e.requests.map((r) => r.id))).toEqual(['t1/x1']);
    await collect(agent.resume('s1', { 't1/x1': { type: 'approve', scope: 'session' } }));
    // Kept in the session's own thread, not only in the subagent's.
    expect((await agent.getState('s1')).sessionApprovals.map((a) => a.tool)).toEqual(['stamp']);
    // A later subagent (a new thread) and the lead itself run it without asking.
    const second = await collect(agent.stream('second', { threadId: 's1' }));
    expect(ofType(second, 'approval-request')).toEqual([]);
    expect(ofType(second, 'tool-approved').map((e) => e.id)).toEqual(['y1']);
    const third = await collect(agent.stream('third', { threadId: 's1', agent: null }));
    expect(ofType(third, 'approval-request')).toEqual([]);
    expect(readFileSync(join(fx.dir.path, 'stamps.txt'), 'utf8')).toBe('a\nb\nc\n');
  });
  it("approving a subagent's ask-rule question for the session approves that call once: no grant is kept", async () => {
    const fx = await skillsFixture({ 'notes/SKILL.md': notes() });
    const task = (id: string, prompt: string) => ({ name: 'task', id, args: { agent: 'helper', prompt } });
    const model = createScriptedModel([
      { match: '^first', tool_calls: [task('t1', 'stamp a')] },
      { match: '^stamp a', tool_calls: [{ name: 'stamp', id: 'x1', args: { line: 'a' } }] },
      { match: '^stamp a', text: 'stamped a' },
      { match: '^first', text: 'first done' },
      { match: '^second', tool_calls: [{ name: 'stamp', id: 'z1', args: { line: 'b' } }] },
    ]);
    const agent = agentOn(
      cleanups,
      fx,
      model,
      [
        agentSpec('lead', { body: 'You lead.', subagents: ['helper'] }),
        agentSpec('helper', { body: 'You help.', skills: ['notes'] }),
      ],
      { approvalRules: [{ pattern: 'stamp(line=a)', effect: 'ask', source: { kind: 'user' } }] },
    );
    const asked = await collect(agent.stream('first', { threadId: 's1', agent: 'lead' }));
    expect(ofType(asked, 'approval-request').flatMap((e) => e.requests.map((r) => [r.id, r.reason]))).toEqual(
      [['t1/x1', 'rule']],
    );
    await collect(agent.resume('s1', { 't1/x1': { type: 'approve', scope: 'session' } }));
    expect((await agent.getState('s1')).sessionApprovals ?? []).toEqual([]);
    // The lead's own call of the tool, which no rule asks about, still asks as the tool declares.
    const second = await collect(agent.stream('second', { threadId: 's1', agent: null }));
    expect(ofType(second, 'approval-request').flatMap((e) => e.requests.map((r) => r.id))).toEqual(['z1']);
    expect(readFileSync(join(fx.dir.path, 'stamps.txt'), 'utf8')).toBe('a\n');
  });
});
