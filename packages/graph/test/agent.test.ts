import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, type BaseMessage, type SystemMessage, type ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { createAgent, type TurnOptions } from '../src/index.js';
import {
  agentSetup,
  alive,
  callTools,
  collect,
  knowledgeSkill,
  ofType,
  readPid,
  stringArg,
  toolMessages,
  toolSkill,
  useCleanups,
  waitFor,
} from './helpers.js';

const setup = agentSetup(useCleanups());

const echoSkill = toolSkill('echo', [
  { name: 'say', entrypoint: 'bash:printf "%s" {text}', schema: stringArg('text') },
]);

describe('agent: tool round trip through a real bash: entrypoint', () => {
  it('runs the call, feeds the result back, and ends with the answer', async () => {
    const { agent, model, fx } = await setup({ 'echo/SKILL.md': echoSkill });
    const hostile = '$(touch PWNED); `touch PWNED2` "quoted" \'single\'';
    model.respond(callTools([{ name: 'say', args: { text: hostile } }])).respond(new AIMessage('done'));
    const events = await collect(agent.stream('say it', { threadId: 't1' }));

    expect(events.map((e) => e.type)).toEqual([
      'message',
      'tool-start',
      'tool-output',
      'tool-end',
      'message',
      'token',
      'message',
      'done',
    ]);
    const [start] = ofType(events, 'tool-start');
    expect(start).toMatchObject({ id: 'c1', name: 'say', skill: 'echo', args: { text: hostile } });
    const [end] = ofType(events, 'tool-end');
    expect(end).toMatchObject({ id: 'c1', name: 'say', ok: true, output: hostile, truncated: false });
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok' }]);
    expect(existsSync(join(fx.dir.path, 'PWNED'))).toBe(false);
    expect(existsSync(join(fx.dir.path, 'PWNED2'))).toBe(false);

    const state = await agent.getState('t1');
    expect(state.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    const tool = state.messages[2] as ToolMessage;
    expect(tool).toMatchObject({ tool_call_id: 'c1', status: 'success', content: hostile });
    // The model's second call saw the tool result after its own call.
    const second = model.calls[1]?.messages as BaseMessage[];
    expect(second.map((m) => m.type)).toEqual(['system', 'human', 'ai', 'tool']);
  });

  it('applies schema defaults for absent arguments', async () => {
    const { agent, model } = await setup({
      'fs/SKILL.md': toolSkill('fs', [
        {
          name: 'show',
          entrypoint: 'bash:printf "[%s]" {path}',
          schema:
            'schema:\n  type: object\n  properties:\n    path:\n      type: string\n      default: "."\n  required: []\n',
        },
      ]),
    });
    model.respond(callTools([{ name: 'show' }])).respond(new AIMessage('ok'));
    await collect(agent.stream('go', { threadId: 't1' }));
    expect((await toolMessages(agent, 't1'))[0]?.content).toBe('[.]');
  });

  it("runs tools in the turn's working directory", async () => {
    const { agent, model, fx } = await setup({
      'where/SKILL.md': toolSkill('where', [{ name: 'where', entrypoint: 'bash:pwd -P' }]),
    });
    const sub = join(fx.dir.path, 'where');
    model.respond(callTools([{ name: 'where' }])).respond(new AIMessage('ok'));
    await collect(agent.stream('where?', { threadId: 't1', cwd: sub }));
    expect((await toolMessages(agent, 't1'))[0]?.content).toBe(`${realpathSync(sub)}\n`);
  });

  it('turns invalid arguments into an error ToolMessage the model can correct', async () => {
    const { agent, model } = await setup({ 'echo/SKILL.md': echoSkill });
    model
      .respond(callTools([{ name: 'say', args: { txt: 'typo' } }]))
      .respond(callTools([{ name: 'say', args: { text: 'fixed' }, id: 'c2' }]))
      .respond(new AIMessage('ok'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const [bad, good] = await toolMessages(agent, 't1');
    expect(bad?.status).toBe('error');
    expect(bad?.content).toMatch(/Invalid arguments[\s\S]*text/);
    expect(good).toMatchObject({ status: 'success', content: 'fixed' });
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('answers a call whose arguments were not JSON, so the history stays valid', async () => {
    const { agent, model } = await setup({ 'echo/SKILL.md': echoSkill });
    model
      .respond(
        new AIMessage({
          content: '',
          invalid_tool_calls: [
            {
              id: 'bad1',
              name: 'say',
              args: '{"text": ',
              error: 'Unexpected end of JSON',
              type: 'invalid_tool_call',
            },
          ],
        }),
      )
      .respond(new AIMessage('retrying later'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const [result] = await toolMessages(agent, 't1');
    expect(result).toMatchObject({ tool_call_id: 'bad1', status: 'error' });
    expect(result?.content).toMatch(/not valid JSON/);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('reports a failing command as status "error" and keeps the loop going', async () => {
    const { agent, model } = await setup({
      'fail/SKILL.md': toolSkill('fail', [{ name: 'boom', entrypoint: 'bash:echo oops >&2; exit 3' }]),
    });
    model.respond(callTools([{ name: 'boom' }])).respond(new AIMessage('it failed'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const [tool] = await toolMessages(agent, 't1');
    expect(tool?.status).toBe('error');
    expect(tool?.content).toMatch(/non-zero-exit/);
    expect(ofType(events, 'tool-end')[0]?.ok).toBe(false);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it('shows a failing command its output once, under one label (stderr is not repeated)', async () => {
    const { agent, model } = await setup({
      'fail/SKILL.md': toolSkill('fail', [
        { name: 'boom', entrypoint: 'bash:echo out1; echo err1 >&2; echo out2; exit 3' },
      ]),
    });
    model.respond(callTools([{ name: 'boom' }])).respond(new AIMessage('it failed'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const [tool] = await toolMessages(agent, 't1');
    const text = String(tool?.content);
    expect(text).toMatch(/^Error \(non-zero-exit\): command exited with code 3\noutput:\n/);
    expect(text.split('err1').length - 1).toBe(1);
    expect(text).toContain('out1');
    expect(text).toContain('out2');
    expect(text).not.toContain('stderr:');
    expect(ofType(events, 'tool-end')[0]?.output).toBe(text);
  });

  it('cuts long output with a visible note', async () => {
    const { agent, model } = await setup(
      {
        'big/SKILL.md': toolSkill('big', [
          { name: 'flood', entrypoint: "bash:head -c 1000 /dev/zero | tr '\\0' a" },
        ]),
      },
      { maxToolOutputChars: 100 },
    );
    model.respond(callTools([{ name: 'flood' }])).respond(new AIMessage('ok'));
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const [tool] = await toolMessages(agent, 't1');
    expect(tool?.content).toBe(`${'a'.repeat(100)}\n[truncated: 900 more characters]`);
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ truncated: true });
  });

  it('runs the parallel calls of one AIMessage concurrently', async () => {
    // The waiter only succeeds if the maker runs while it waits: impossible one after the other.
    const { agent, model, fx } = await setup({
      'pair/SKILL.md': toolSkill('pair', [
        {
          name: 'wait_for',
          entrypoint:
            'bash:for i in $(seq 1 200); do [ -f {flag} ] && echo seen && exit 0; sleep 0.05; done; exit 1',
          schema: stringArg('flag'),
        },
        { name: 'make', entrypoint: 'bash:sleep 0.3; touch {flag}', schema: stringArg('flag') },
      ]),
    });
    const flag = join(fx.dir.path, 'flag');
    model
      .respond(
        callTools([
          { name: 'wait_for', args: { flag } },
          { name: 'make', args: { flag } },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('go', { threadId: 't1' }));
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'success'],
    ]);
    expect(results[0]?.content).toBe('seen\n');
  });
});

describe('agent: policy is enforced every turn', () => {
  it('a refused tool whose skill is off names the skill; an invented one stays "disabled or unknown"', async () => {
    const { agent, model, fx } = await setup({ 'echo/SKILL.md': echoSkill });
    fx.policy.disable('t1', 'echo');
    model
      .respond(
        callTools([
          { name: 'say', args: { text: 'two' }, id: 'c1' },
          { name: 'made_up', id: 'c2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    await collect(agent.stream('go', { threadId: 't1' }));
    const [off, invented] = await toolMessages(agent, 't1');
    expect(off?.content).toMatch(
      /^Error: tool "say" is not available in this session: it belongs to the skill "echo", which is not enabled in this session \(only the user can enable it\)\. Available tools: /,
    );
    expect(invented?.content).toMatch(
      /^Error: tool "made_up" is not available in this session \(disabled or unknown\)\./,
    );
  });

  // Exploratory report (team server) #6: a call of a skill the operator's list no longer allows was refused with
  // "(only the user can enable it)", and the user could not: the server refuses enabling it (403).
  it("a refused tool whose skill the application's ceiling excludes says no one in the session can enable it", async () => {
    const { model, fx } = await setup({ 'echo/SKILL.md': echoSkill });
    const { SkillPolicy } = await import('@birdie/registry');
    const policy = new SkillPolicy(fx.registry, { ceiling: { skill: (skill) => skill.name !== 'echo' } });
    policy.enable('t1', 'echo');
    const fenced = createAgent({ model, registry: fx.registry, policy, options: { cwd: fx.dir.path } });
    try {
      model
        .respond(callTools([{ name: 'say', args: { text: 'two' }, id: 'c1' }]))
        .respond(new AIMessage('ok'));
      await collect(fenced.stream('go', { threadId: 't1' }));
      const [off] = await toolMessages(fenced, 't1');
      expect(off?.content).toMatch(
        /^Error: tool "say" is not available in this session: it belongs to the skill "echo", which the application's policy does not allow \(an operator's list of skills\): no one in this session can enable it\. Available tools: /,
      );
    } finally {
      await fenced.close();
    }
  });

  it('drops a skill disabled between turns and refuses its tool when called anyway', async () => {
    const { agent, model, fx } = await setup({
      'echo/SKILL.md': echoSkill,
      'notes/SKILL.md': knowledgeSkill('notes', 'Take notes.'),
    });
    expect((await agent.toolsFor('t1')).map((t) => t.name)).toEqual(['say', 'load_skill']);
    model.respond(callTools([{ name: 'say', args: { text: 'one' } }])).respond(new AIMessage('ok'));
    await collect(agent.stream('first', { threadId: 't1' }));

    fx.policy.disable('t1', 'echo');
    expect((await agent.toolsFor('t1')).map((t) => t.name)).toEqual(['load_skill']);
    expect((await agent.toolsFor('other')).map((t) => t.name)).toEqual(['say', 'load_skill']);
    model
      .respond(
        callTools([
          { name: 'say', args: { text: 'two' }, id: 'c2' },
          { name: 'made_up', id: 'c3' },
        ]),
      )
      .respond(new AIMessage('ok'));
    const events = await collect(agent.stream('second', { threadId: 't1' }));
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => m.status)).toEqual(['success', 'error', 'error']);
    expect(results[1]?.content).toMatch(/tool "say" is not available in this session/);
    expect(results[2]?.content).toMatch(/tool "made_up" is not available/);
    expect(ofType(events, 'tool-end').map((e) => e.ok)).toEqual([false, false]);
    expect(ofType(events, 'tool-end').map((e) => e.outcome)).toEqual(['refused', 'refused']);
    // The system prompt of the second turn no longer lists the disabled skill.
    const system = model.calls[2]?.messages[0] as SystemMessage;
    expect(system.content).not.toContain('- echo');
    expect(system.content).toContain('- notes');
  });
});

describe('agent: loop guard and recursion limit', () => {
  it('refuses the same call in more than three consecutive model turns', async () => {
    const { agent, model } = await setup({ 'echo/SKILL.md': echoSkill });
    for (let i = 1; i <= 4; i += 1)
      model.respond(callTools([{ name: 'say', args: { text: 'same' }, id: `c${i}` }]));
    model.respond(new AIMessage('stopping'));
    await collect(agent.stream('go', { threadId: 't1' }));
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => m.status)).toEqual(['success', 'success', 'success', 'error']);
    expect(results[3]?.content).toMatch(/already made in 3 consecutive turns/);
  });

  it('ends a run that hits the recursion limit with a clear error, and the thread stays usable', async () => {
    const { agent, model } = await setup({ 'echo/SKILL.md': echoSkill }, { recursionLimit: 4 });
    // Keeps calling tools until the user's second message arrives.
    for (let i = 1; i <= 10; i += 1) {
      model.respond((messages) =>
        messages.some((m) => m.type === 'human' && m.text === 'and now?')
          ? new AIMessage('recovered')
          : callTools([{ name: 'say', args: { text: `n${i}` }, id: `c${i}` }]),
      );
    }
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    expect(ofType(events, 'error')[0]?.error.code).toBe('recursion-limit');
    expect(ofType(events, 'error')[0]?.error.message).toMatch(/Stopped after 4 steps/);
    expect(ofType(events, 'done')[0]?.status).toBe('error');

    const next = await collect(agent.stream('and now?', { threadId: 't1' }));
    expect(ofType(next, 'done')[0]?.status).toBe('ok');
    const state = await agent.getState('t1');
    expect(state.messages.at(-1)?.content).toBe('recovered');
  });
});

describe('agent: cancellation', () => {
  it('aborting the run kills the running command and its children; the call is answered as cancelled', async () => {
    const { agent, model, fx } = await setup({
      'slow/SKILL.md': toolSkill('slow', [
        {
          name: 'slow',
          entrypoint: 'bash:sleep 30 & echo $! > {pidfile}; wait',
          schema: stringArg('pidfile'),
        },
      ]),
    });
    const pidfile = join(fx.dir.path, 'sleep.pid');
    model.respond(callTools([{ name: 'slow', args: { pidfile } }])).respond(new AIMessage('after abort'));
    const controller = new AbortController();
    const running = collect(agent.stream('go', { threadId: 't1', signal: controller.signal }));
    const pid = await waitFor(readPid(pidfile));
    expect(alive(pid)).toBe(true);
    controller.abort();
    const events = await running;
    expect(ofType(events, 'done')[0]?.status).toBe('aborted');
    await waitFor(() => (alive(pid) ? undefined : true), 5000);

    await collect(agent.stream('continue', { threadId: 't1' }));
    const state = await agent.getState('t1');
    expect(state.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human', 'ai']);
    // Cancelled, not crashed: the call is answered at once, and the model is told the user stopped it.
    expect((state.messages[2] as ToolMessage).content).toMatch(
      /^\[Cancelled by the user while it ran, before it printed anything/,
    );
    expect(ofType(events, 'tool-end')).toEqual([
      expect.objectContaining({
        name: 'slow',
        ok: false,
        outcome: 'cancelled',
        stopNote: 'Cancelled by the user',
      }),
    ]);
  });
});

describe('agent: close', () => {
  // Reported by an embedder: `agent.close()` during a turn let the turn go on: its tool finished and the model was
  // called again after the application had shut the agent down.
  it('stops a run in progress: its command is killed, the call answered, the model not called again; no new run starts', async () => {
    const { agent, model, fx } = await setup({
      'slow/SKILL.md': toolSkill('slow', [
        {
          name: 'slow',
          entrypoint: 'bash:sleep 600 & echo $! > {pidfile}; wait',
          schema: stringArg('pidfile'),
        },
      ]),
    });
    const pidfile = join(fx.dir.path, 'sleep.pid');
    model.respond(callTools([{ name: 'slow', args: { pidfile } }])).respond(new AIMessage('after close'));
    const running = collect(agent.stream('go', { threadId: 't1' }));
    const pid = await waitFor(readPid(pidfile));
    expect(alive(pid)).toBe(true);
    await agent.close();
    const events = await running;
    expect(ofType(events, 'tool-end')).toEqual([
      expect.objectContaining({ name: 'slow', ok: false, outcome: 'cancelled' }),
    ]);
    expect(ofType(events, 'error').map((e) => e.error.code)).toEqual(['closed']);
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'error' }]);
    await waitFor(() => (alive(pid) ? undefined : true), 5000);
    expect(model.calls).toHaveLength(1);
    // The thread is whole: the call has its answer, saying why it stopped.
    const state = await agent.getState('t1');
    expect(state.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool']);
    expect((state.messages[2] as ToolMessage).content).toMatch(
      /^\[Stopped because birdie was closed while it ran/,
    );
    await expect(collect(agent.stream('again', { threadId: 't2' }))).rejects.toMatchObject({
      code: 'closed',
    });
  });
});

describe('agent: prompt and context', () => {
  const files = {
    'deploy/SKILL.md': knowledgeSkill(
      'deploy',
      'Always run the smoke tests before deploying.',
      'triggers: [deploy]\n',
    ),
    'todo/SKILL.md': `---\nname: todo\ndescription: Planning\nenabled_by_default: true\nalways_inject: true\n---\n\nPlan before acting.\n\n## Tools\n\n### plan\ndescription: Make a plan\nentrypoint: bash:echo planned\nschema:\n  type: object\n  properties: {}\n`,
  };

  it('injects always-on and triggered bodies and memory, byte-identical across equal turns', async () => {
    const { agent, model } = await setup(files);
    model.respond(new AIMessage('a')).respond(new AIMessage('b')).respond(new AIMessage('c'));
    await collect(agent.stream('please deploy', { threadId: 't1', memory: ['prefers short answers'] }));
    await collect(agent.stream('please deploy', { threadId: 't2', memory: ['prefers short answers'] }));
    await collect(agent.stream('hello', { threadId: 't3' }));
    const prompts = model.calls.map((c) => String(c.messages[0]?.content));
    expect(prompts[0]).toBe(prompts[1]);
    expect(prompts[0]).toContain('<skill name="todo">\nPlan before acting.\n</skill>');
    expect(prompts[0]).toContain(
      '<skill name="deploy">\nAlways run the smoke tests before deploying.\n</skill>',
    );
    expect(prompts[0]).toContain('- prefers short answers');
    expect(prompts[2]).toContain('Plan before acting.');
    expect(prompts[2]).not.toContain('smoke tests');
    expect(prompts[2]).not.toContain('prefers short answers');
  });

  it('without compaction, sends only the last N messages, never starting with an orphan tool result', async () => {
    const { agent, model } = await setup(
      { 'echo/SKILL.md': echoSkill },
      { contextMessages: 3, compaction: false },
    );
    model
      .respond(
        callTools([
          { name: 'say', args: { text: 'a' } },
          { name: 'say', args: { text: 'b' }, id: 'c2' },
        ]),
      )
      .respond(new AIMessage('one'))
      .respond(new AIMessage('two'));
    await collect(agent.stream('first', { threadId: 't1' }));
    await collect(agent.stream('second', { threadId: 't1' }));
    // Call 2 (after the tools): last 3 = ai(calls), tool, tool, with the request in front.
    // Call 3: last 3 = tool, ai, human → the orphan tool result is dropped, the request goes in front.
    const windows = model.calls.map((c) => c.messages.slice(1).map((m) => String(m.content) || m.type));
    expect(windows[1]).toEqual(['first', 'ai', 'a', 'b']);
    expect(windows[2]).toEqual(['first', 'one', 'second']);
    expect((await agent.getState('t1')).messages).toHaveLength(7);
  });
});

describe('agent: events', () => {
  it('emits usage, and an error event for a failing model', async () => {
    const { agent, model } = await setup({ 'echo/SKILL.md': echoSkill });
    model
      .respond(
        new AIMessage({
          content: 'hi',
          usage_metadata: { input_tokens: 12, output_tokens: 3, total_tokens: 15 },
        }),
      )
      .respond(new Error('503 upstream unavailable'));
    const ok = await collect(agent.stream('hello', { threadId: 't1' }));
    expect(ofType(ok, 'token').map((e) => e.text)).toEqual(['hi']);
    // The usage names the model, and what was sent by the estimator's count against the model's window.
    const [usage] = ofType(ok, 'usage');
    expect(usage).toMatchObject({
      type: 'usage',
      inputTokens: 12,
      outputTokens: 3,
      model: 'fake-model-builder',
    });
    expect(usage?.context?.window).toBe(128_000);
    expect(usage?.context?.tokens).toBeGreaterThan(0);
    const failed = await collect(agent.stream('again', { threadId: 't1' }));
    expect(ofType(failed, 'error')[0]?.error).toMatchObject({ code: 'model-error' });
    expect(ofType(failed, 'error')[0]?.error.message).toMatch(/503 upstream unavailable/);
    expect(ofType(failed, 'done')[0]?.status).toBe('error');
  });

  it('rejects a thread id that could escape a key or a file name', async () => {
    const { agent } = await setup({});
    expect(() => agent.stream('x', { threadId: '../etc' })).toThrow(/Invalid thread id/);
  });

  it('refuses a malformed turn option when the turn starts, before any node runs (bad-option)', async () => {
    const { agent, model } = await setup({});
    const bad = [
      { approval: 'sometimes' },
      { askRawCommands: 'yes' },
      { cwd: 42 },
      { memory: 'remember this' },
      { journal: 'not a journal' },
    ] as unknown as Array<Partial<TurnOptions>>;
    for (const turn of bad) {
      expect(() => agent.stream('x', { threadId: 't', ...turn }), JSON.stringify(turn)).toThrow(
        expect.objectContaining({ code: 'bad-option' }),
      );
      expect(() => agent.resume('t', {}, turn), JSON.stringify(turn)).toThrow(
        expect.objectContaining({ code: 'bad-option' }),
      );
    }
    model.respond(new AIMessage('hello'));
    const events = await collect(agent.stream('hi', { threadId: 't', approval: 'never', memory: [] }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
  });

  it("takes a store's session id numbered per user as its thread id", async () => {
    const { agent, model } = await setup({});
    model.respond(new AIMessage('hello')).respond(new AIMessage('again'));
    for (const threadId of ['a.b@example.org~2026-11-29_1', 'bob~2026-11-29_1']) {
      const events = await collect(agent.stream('hi', { threadId }));
      expect(ofType(events, 'done')[0]?.status, threadId).toBe('ok');
    }
  });
});
