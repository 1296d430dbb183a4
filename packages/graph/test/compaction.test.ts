import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, CHARS_ESTIMATOR, createAgent, SUMMARY_HEADER } from '../src/index.js';
import {
  callTools,
  collect,
  knowledgeSkill,
  ofType,
  skillsFixture,
  textOf,
  toolSkill,
  useCleanups,
} from './helpers.js';

const cleanups = useCleanups();

/** A tool whose result is 2,000 characters, so a few turns fill a small window. */
const bigSkill = toolSkill('big', [{ name: 'fetch_page', entrypoint: 'bash:yes x | head -c 2000' }]);

const isSummaryRequest = (messages: readonly BaseMessage[]) =>
  messages.some((m) => HumanMessage.isInstance(m) && m.text.startsWith(SUMMARY_HEADER));

type Plan = (request: string) => AIMessage[] | undefined;

/**
 * A scripted model for long sessions: a summary request is answered with `SUMMARY <n>`; in a conversation call, the
 * reply is the next step of the plan for the user's latest request (by default: call `fetch_page` once, then answer).
 */
function scriptedSession(plan: Plan = () => undefined, calls = 2000) {
  const model = fakeModel();
  let summaries = 0;
  let turns = 0;
  const reply = (messages: BaseMessage[]) => {
    if (isSummaryRequest(messages)) {
      summaries += 1;
      return new AIMessage(`SUMMARY ${summaries}: the user asked for pages; numbers 42 and 7 matter.`);
    }
    const at = messages.findLastIndex((m) => HumanMessage.isInstance(m));
    const request = (messages[at] as HumanMessage).text;
    const step = messages.slice(at).filter((m) => AIMessage.isInstance(m)).length;
    if (step === 0) turns += 1;
    const steps = plan(request) ?? [
      callTools([{ name: 'fetch_page', id: `call-${turns}` }]),
      new AIMessage(`done ${turns}`),
    ];
    const out = steps[step] ?? new AIMessage('done');
    out.usage_metadata = { input_tokens: 10, output_tokens: 2, total_tokens: 12 };
    return out;
  };
  for (let i = 0; i < calls; i += 1) model.respond(reply);
  return model;
}

/** Every tool result sent is preceded, in the same request, by the AI message that called it. */
function pairsIntact(messages: readonly BaseMessage[]): boolean {
  const called = new Set<string>();
  for (const m of messages) {
    if (AIMessage.isInstance(m)) for (const c of m.tool_calls ?? []) called.add(c.id ?? '');
    if (ToolMessage.isInstance(m) && !called.has(m.tool_call_id)) return false;
  }
  return true;
}

async function session(
  files: Record<string, string>,
  options: Parameters<typeof createAgent>[0]['options'] = {},
  plan?: Plan,
) {
  const fx = await skillsFixture(files);
  const store = openStore({ file: join(fx.dir.path, 'birdie.db') });
  const model = scriptedSession(plan);
  const make = () =>
    createAgent({
      model,
      registry: fx.registry,
      policy: fx.policy,
      checkpointer: store.checkpointer,
      options: { cwd: fx.dir.path, contextWindow: 8000, ...options },
    });
  const agent = make();
  cleanups.push(async () => {
    await agent.close();
    await store.close();
    await fx.dir.cleanup();
  });
  return { fx, store, model, agent, make };
}

const conversationCalls = (model: ReturnType<typeof fakeModel>) =>
  model.calls.map((c) => c.messages as BaseMessage[]).filter((m) => !isSummaryRequest(m));

describe('compaction against a small context_window', () => {
  it('cuts old tool results, then summarises the older part; every request stays within the budget', async () => {
    const { agent, model } = await session({ 'big/SKILL.md': bigSkill });
    const events: AgentEvent[] = [];
    for (let turn = 1; turn <= 30; turn += 1)
      events.push(...(await collect(agent.stream(`fetch page ${turn}`, { threadId: 's1' }))));

    const compactions = ofType(events, 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ trigger: 'auto', window: 8000, model: 'fake-model-builder' });
    expect(compactions[0]?.tokensAfter).toBeLessThan(compactions[0]?.tokensBefore ?? 0);

    // What each conversation call was sent, counted with the agent's own estimator, is within the window
    // minus the room kept for the answer (a quarter of 8,000 here: the fake model has no profile).
    const usages = ofType(events, 'usage');
    expect(usages.length).toBe(60);
    for (const u of usages) {
      expect(u.context?.window).toBe(8000);
      expect(u.context?.tokens).toBeLessThanOrEqual(6000);
    }
    const sent = conversationCalls(model);
    expect(sent.length).toBe(60);
    for (const messages of sent) {
      expect(CHARS_ESTIMATOR.messages(messages)).toBeLessThanOrEqual(6000);
      expect(pairsIntact(messages)).toBe(true);
    }

    // Before the first summary, old tool results were cut first; the last exchanges stayed whole.
    const firstSummarised = sent.findIndex((m) => textOf(m[1]).startsWith('<conversation-summary>'));
    expect(firstSummarised).toBeGreaterThan(0);
    const beforeIt = sent[firstSummarised - 1] as BaseMessage[];
    const results = beforeIt.filter((m) => ToolMessage.isInstance(m)).map(textOf);
    expect(results.some((t) => t.includes('more characters of this old tool result were cut'))).toBe(true);
    expect(results.at(-1)?.length).toBe(2000);

    // After it: the summary first, then the recent messages verbatim, ending with the current request.
    const last = sent.at(-1) as BaseMessage[];
    expect(textOf(last[1])).toMatch(/^<conversation-summary>\nThe earlier conversation \(\d+ messages\)/);
    expect(textOf(last[1])).toContain('SUMMARY');
    expect(last.slice(2).some((m) => HumanMessage.isInstance(m) && m.text === 'fetch page 30')).toBe(true);
    expect(last.some((m) => HumanMessage.isInstance(m) && m.text === 'fetch page 1')).toBe(false);

    // What is stored does not change: every message is kept, and the boundaries are in the state.
    const state = await agent.getState('s1');
    expect(state.messages.length).toBe(30 * 4);
    expect(state.compactions.length).toBe(compactions.length);
    expect(state.compactions[0]).toMatchObject({ trigger: 'auto', skills: [] });
    expect(state.messages.some((m) => m.id === state.compactions[0]?.upTo)).toBe(true);
  });

  it('archives the summarised part: a new process reads only what follows the boundary; the whole history reads in order', async () => {
    const { agent, model, fx, make } = await session({ 'big/SKILL.md': bigSkill });
    for (let turn = 1; turn <= 30; turn += 1) await agent.invoke(`fetch page ${turn}`, { threadId: 's1' });
    const whole = await agent.getState('s1');
    expect(whole.messages.map(textOf).filter((t) => t.startsWith('fetch page'))).toEqual(
      Array.from({ length: 30 }, (_, i) => `fetch page ${i + 1}`),
    );
    expect(new Set(whole.messages.map((m) => m.id)).size).toBe(30 * 4);

    // Live: the latest archived boundary's message, then what follows it; `earlier` counts the rest.
    const recent = await agent.getState('s1', { recent: true });
    const earlier = recent.earlier ?? 0;
    expect(earlier).toBeGreaterThan((30 * 4) / 2);
    expect(recent.messages.length + earlier).toBe(30 * 4);
    expect(recent.messages.map((m) => m.id)).toEqual(whole.messages.slice(earlier).map((m) => m.id));
    expect(whole.compactions.map((c) => c.upTo)).toContain(recent.messages[0]?.id);
    // Where each summary ends is counted in the whole history, not in what was live when it was made.
    for (const c of whole.compactions) expect(whole.messages[c.messages - 1]?.id).toBe(c.upTo);

    // A new process (new connection, empty caches) rebuilds the messages from the reset on, never the whole list.
    await agent.close();
    const reopened = openStore({ file: join(fx.dir.path, 'birdie.db') });
    cleanups.push(() => reopened.close());
    const config = { configurable: { thread_id: 's1', checkpoint_ns: '' } };
    const history = (await reopened.checkpointer.getDeltaChannelHistory({ config, channels: ['messages'] }))
      .messages!;
    // A snapshot taken after the reset holds only what the reset kept and what followed.
    const seed = (history as { seed?: { value?: unknown[] } }).seed?.value ?? [];
    const read = history.writes.reduce((n, w) => {
      const value = w[2] as { __overwrite__?: unknown[] } | unknown[];
      return n + (Array.isArray(value) ? value.length : (value.__overwrite__?.length ?? 0));
    }, seed.length);
    expect(read).toBeLessThanOrEqual(recent.messages.length);

    // The next turns go on from the summary as before, and the history stays whole across the reopen.
    const again = make();
    cleanups.push(() => again.close());
    await again.invoke('fetch page 31', { threadId: 's1' });
    const sent = conversationCalls(model).at(-2) as BaseMessage[];
    expect(textOf(sent[1])).toMatch(/^<conversation-summary>/);
    expect(sent.some((m) => HumanMessage.isInstance(m) && m.text === 'fetch page 1')).toBe(false);
    expect((await again.getState('s1')).messages.length).toBe(31 * 4);
  });

  it('asks for the summary with the older conversation as a transcript, and folds the previous summary in', async () => {
    const { agent, model } = await session({ 'big/SKILL.md': bigSkill });
    for (let turn = 1; turn <= 40; turn += 1) await agent.invoke(`fetch page ${turn}`, { threadId: 's1' });
    const requests = model.calls.map((c) => c.messages as BaseMessage[]).filter(isSummaryRequest);
    expect(requests.length).toBeGreaterThan(1);
    const [system, first] = requests[0] as BaseMessage[];
    expect(textOf(system)).toContain('You compact a conversation between a user and an AI assistant');
    expect(textOf(first)).toContain('<conversation>\n[user] fetch page 1\n[assistant called fetch_page] {}');
    expect(textOf(first)).toContain('[fetch_page result] x\nx\nx\n');
    expect(textOf(first)).not.toContain('<previous-summary>');
    // The second summary covers only what came after the first, with the first given as the previous summary.
    const second = textOf((requests[1] as BaseMessage[])[1]);
    expect(second).toContain('<previous-summary>\nSUMMARY 1:');
    expect(second).not.toContain('[user] fetch page 1\n');
  });

  it('turns skill bodies loaded in the summarised part into breadcrumbs that say how to load them again', async () => {
    const plan: Plan = (request) =>
      request.startsWith('load notes')
        ? [
            callTools([{ name: 'load_skill', args: { name: 'notes' }, id: `load-${request}` }]),
            new AIMessage('loaded'),
          ]
        : undefined;
    const { agent, model } = await session(
      {
        'big/SKILL.md': bigSkill,
        'notes/SKILL.md': knowledgeSkill('notes', `NOTES_BODY ${'Write everything down. '.repeat(20)}`),
      },
      {},
      plan,
    );
    await agent.invoke('load notes', { threadId: 's1' });
    for (let turn = 1; turn <= 30; turn += 1) await agent.invoke(`fetch page ${turn}`, { threadId: 's1' });
    const sent = conversationCalls(model);
    // Once past the threshold, the old body is a breadcrumb before any summary is made…
    const crumb = sent.find((m) => m.some((x) => textOf(x).startsWith('[Skill "notes" was loaded here')));
    expect(crumb).toBeDefined();
    expect(textOf(crumb?.find((x) => textOf(x).startsWith('[Skill "notes"')))).toBe(
      '[Skill "notes" was loaded here (Knowledge about notes); its instructions were removed to save context. Call load_skill with {"name":"notes"} to read them again.]',
    );
    // …and once summarised, the summary lists it.
    const last = sent.at(-1) as BaseMessage[];
    expect(textOf(last[1])).toContain(
      'Skills loaded earlier (their instructions are no longer above; call load_skill to read one again):\n- notes: Knowledge about notes',
    );
    expect(last.some((m) => textOf(m).includes('NOTES_BODY'))).toBe(false);
    expect((await agent.getState('s1')).compactions.at(-1)?.skills).toEqual(['notes']);

    // Loading it again brings the whole body back (it is no longer sent, so it is not "already loaded").
    await agent.invoke('load notes again', { threadId: 's1' });
    const reloaded = (await agent.getState('s1')).messages.at(-2);
    expect(ToolMessage.isInstance(reloaded) && textOf(reloaded).includes('NOTES_BODY')).toBe(true);
  });
});

describe('compact now (/compact)', () => {
  it("summarises all but the last exchange with the user's instructions; the next call starts from the summary", async () => {
    const { agent, model } = await session({ 'big/SKILL.md': bigSkill });
    for (let turn = 1; turn <= 3; turn += 1) await agent.invoke(`fetch page ${turn}`, { threadId: 's1' });
    const before = (await agent.getState('s1')).messages;
    const result = await agent.compact('s1', { instructions: 'keep the page numbers' });
    expect(result).toMatchObject({
      messages: 8,
      applied: true,
      record: { trigger: 'manual', instructions: 'keep the page numbers' },
    });
    expect(result?.tokensAfter).toBeLessThan(result?.tokensBefore ?? 0);
    expect(result?.usage.model).toBe('fake-model-builder');
    // The summarised part is archived at once: live, the thread keeps the boundary's message and the last exchange.
    const live = await agent.getState('s1', { recent: true });
    expect(live.earlier).toBe(7);
    expect(live.messages.map((m) => m.id)).toEqual(before.slice(7).map((m) => m.id));
    const request = model.calls.at(-1)?.messages as BaseMessage[];
    expect(textOf(request[1])).toContain('[user] fetch page 2');
    expect(textOf(request[1])).not.toContain('[user] fetch page 3');
    expect(textOf(request[1])).toContain(
      'What the user wants this summary to keep or focus on: keep the page numbers',
    );

    await agent.invoke('fetch page 4', { threadId: 's1' });
    const next = conversationCalls(model).at(-2) as BaseMessage[];
    expect(next.map((m) => m.type)).toEqual(['system', 'human', 'human', 'ai', 'tool', 'ai', 'human']);
    expect(textOf(next[1])).toContain('SUMMARY 1');
    expect(textOf(next[2])).toBe('fetch page 3');
    const state = await agent.getState('s1');
    expect(state.messages.slice(0, before.length).map((m) => m.id)).toEqual(before.map((m) => m.id));
    expect(state.compactions.map((c) => c.trigger)).toEqual(['manual']);
  });

  // Reported: `/compact` on a short conversation recorded a summary longer than what it covered and said it had
  // compacted (120 → 160 tok); every later call sent the longer conversation.
  it('records nothing when the summary would not make the conversation smaller', async () => {
    const { agent } = await session({ 'big/SKILL.md': bigSkill }, {}, () => [new AIMessage('ok')]);
    for (let turn = 1; turn <= 3; turn += 1) await agent.invoke(`hi ${turn}`, { threadId: 's1' });
    const before = await agent.getState('s1', { recent: true });
    const result = await agent.compact('s1');
    expect(result).toMatchObject({ applied: false, messages: 4 });
    expect(result!.tokensAfter).toBeGreaterThanOrEqual(result!.tokensBefore);
    const after = await agent.getState('s1', { recent: true });
    expect(after.compactions).toEqual([]);
    expect(after.earlier).toBe(0);
    expect(after.messages.map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
  });

  it('has nothing to do on a thread of one exchange', async () => {
    const { agent } = await session({ 'big/SKILL.md': bigSkill });
    await agent.invoke('fetch page 1', { threadId: 's1' });
    expect(await agent.compact('s1')).toBeUndefined();
    expect((await agent.getState('s1')).compactions).toEqual([]);
  });

  it('a resumed session (new process, same SQLite file) sends the same summary without making it again', async () => {
    const { agent, model, make } = await session({ 'big/SKILL.md': bigSkill });
    for (let turn = 1; turn <= 3; turn += 1) await agent.invoke(`fetch page ${turn}`, { threadId: 's1' });
    await agent.compact('s1');
    await agent.invoke('fetch page 4', { threadId: 's1' });
    const summaryText = textOf((conversationCalls(model).at(-1) as BaseMessage[])[1]);
    const requestsBefore = model.calls.filter((c) => isSummaryRequest(c.messages as BaseMessage[])).length;
    await agent.close();

    const again = make();
    cleanups.push(() => again.close());
    expect((await again.getState('s1')).compactions.length).toBe(1);
    await again.invoke('fetch page 5', { threadId: 's1' });
    const first = conversationCalls(model).at(-2) as BaseMessage[];
    expect(textOf(first[1])).toBe(summaryText);
    expect(model.calls.filter((c) => isSummaryRequest(c.messages as BaseMessage[])).length).toBe(
      requestsBefore,
    );
  });
});
