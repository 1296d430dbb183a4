import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { argsDigest } from '../src/digest.js';
import { AgentError, checkToolArgs, UNANSWERED_APPROVAL_RESULT } from '../src/index.js';
import {
  agentOn,
  agentSetup,
  callTools,
  collect,
  knowledgeSkill,
  ofType,
  skillsFixture,
  stringArg,
  toolMessages,
  toolSkill,
  useCleanups,
} from './helpers.js';

const files = {
  'shell/SKILL.md': toolSkill('shell', [
    {
      name: 'run_bash',
      entrypoint: 'bash:{command}',
      schema: stringArg('command'),
      description: 'Run a shell command',
    },
  ]),
  'notes/SKILL.md': toolSkill('notes', [
    { name: 'append', entrypoint: 'bash:printf "%s\\n" {line} >> {file}', schema: stringArg('line', 'file') },
    {
      name: 'wipe',
      entrypoint: 'bash:rm -f {file}',
      schema: stringArg('file'),
      extra: 'approval: required\n',
    },
  ]),
  'help/SKILL.md': knowledgeSkill('help', 'How to help.'),
};

const cleanups = useCleanups();
const fixture = agentSetup(cleanups);

async function setup() {
  const { fx, model, agent } = await fixture(files);
  return { fx, model, agent, file: (name: string) => join(fx.dir.path, name) };
}

describe('approvals', () => {
  it('describes the call whole: a long command, its newlines kept, is not shortened (report #1)', async () => {
    const { agent, model, file } = await setup();
    const command = `echo ${'a'.repeat(3000)} > /dev/null\necho HIDDEN > ${file('pwned')}`;
    model
      .respond(callTools([{ name: 'run_bash', args: { command }, id: 'call-1' }]))
      .respond(new AIMessage('done'));
    const [request] = ofType(await collect(agent.stream('do it', { threadId: 't1' })), 'approval-request');
    expect(request?.requests[0]?.description).toBe(`Run shell command: ${command}`);
  });

  it('asks before a raw shell command, runs nothing until approved, then runs it once', async () => {
    const { agent, model, file } = await setup();
    const command = `echo ran >> ${file('log')}`;
    model
      .respond(callTools([{ name: 'run_bash', args: { command }, id: 'call-1' }]))
      .respond(new AIMessage('done'));
    const first = await collect(agent.stream('do it', { threadId: 't1' }));
    const [request] = ofType(first, 'approval-request');
    expect(request?.requests).toEqual([
      {
        id: 'call-1',
        digest: argsDigest('run_bash', { command }),
        tool: 'run_bash',
        skill: 'shell',
        raw: true,
        args: { command },
        parameters: expect.objectContaining({ type: 'object', required: ['command'] }),
        description: `Run shell command: ${command}`,
        reason: 'raw-command',
      },
    ]);
    // the schema travels with the request, so a prompt can check an edit before sending it
    const parameters = request!.requests[0]!.parameters!;
    expect(checkToolArgs(parameters, { command: 'ls' })).toBeUndefined();
    expect(checkToolArgs(parameters, { command: 5 })).toMatch(
      /^Invalid arguments, fix them and call again:\n- command: /,
    );
    expect(checkToolArgs(parameters, {})).toMatch(/command/);
    expect(ofType(first, 'done')).toEqual([{ type: 'done', status: 'interrupted' }]);
    expect(ofType(first, 'tool-start')).toEqual([]);
    expect(existsSync(file('log'))).toBe(false);
    expect((await agent.getState('t1')).pendingApprovals).toEqual(request?.requests);

    const second = await collect(agent.resume('t1', { 'call-1': { type: 'approve' } }));
    expect(ofType(second, 'done')[0]?.status).toBe('ok');
    expect(readFileSync(file('log'), 'utf8')).toBe('ran\n');
    expect((await agent.getState('t1')).pendingApprovals).toEqual([]);
    await expect(collect(agent.resume('t1', { 'call-1': { type: 'approve' } }))).rejects.toMatchObject({
      code: 'nothing-to-resume',
    });
    expect(readFileSync(file('log'), 'utf8')).toBe('ran\n');
  });

  it('runs an edited call with the new arguments and tells the model', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: 'rm -rf /' }, id: 'x' }]))
      .respond(new AIMessage('ok'));
    await collect(agent.stream('clean up', { threadId: 't1' }));
    await collect(
      agent.resume('t1', { x: { type: 'edit', args: { command: `echo safe > ${file('edited')}` } } }),
    );
    expect(readFileSync(file('edited'), 'utf8')).toBe('safe\n');
    const [result] = await toolMessages(agent, 't1');
    expect(result?.status).toBe('success');
    expect(result?.content).toContain('[The user edited the arguments to');
  });

  // Reported: an edit whose arguments do not fit the schema ended with `ok: false` and no `outcome`, so a front end
  // showed the call as a tool that failed, not as one that did not run.
  it('refuses an edited call whose arguments do not fit the schema: it does not run, and tool-end says so', async () => {
    const { agent, model } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: 'rm -rf /' }, id: 'x' }]))
      .respond(new AIMessage('ok'));
    await collect(agent.stream('clean up', { threadId: 't1' }));
    const events = await collect(agent.resume('t1', { x: { type: 'edit', args: { command: 5 } } }));
    expect(ofType(events, 'tool-start')).toEqual([]);
    expect(ofType(events, 'tool-end')).toEqual([
      expect.objectContaining({ id: 'x', ok: false, outcome: 'refused', durationMs: 0 }),
    ]);
    const [result] = await toolMessages(agent, 't1');
    expect(result?.status).toBe('error');
    expect(result?.content).toContain("The user's edited arguments were invalid; the call did not run.");
  });

  it('rejects a call without running it and passes the user message to the model', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'wipe', args: { file: file('keep') } }]))
      .respond(new AIMessage('understood'));
    await collect(agent.stream('wipe it', { threadId: 't1' }));
    const events = await collect(agent.resume('t1', { c1: { type: 'reject', message: 'not that file' } }));
    const [result] = await toolMessages(agent, 't1');
    expect(result?.status).toBe('error');
    expect(result?.content).toBe('The user rejected this call; it did not run. Their message: not that file');
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ ok: false, outcome: 'rejected' });
    expect(model.calls[1]?.messages.at(-1)?.content).toContain('not that file');
  });

  it('holds back every call of the batch, including ones that need no approval', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(
        callTools([
          { name: 'append', args: { line: 'free', file: file('notes.txt') } },
          { name: 'wipe', args: { file: file('other') } },
        ]),
      )
      .respond(new AIMessage('ok'));
    const first = await collect(agent.stream('go', { threadId: 't1' }));
    expect(ofType(first, 'approval-request')[0]?.requests.map((r) => [r.tool, r.reason])).toEqual([
      ['wipe', 'approval-required'],
    ]);
    expect(existsSync(file('notes.txt'))).toBe(false);
    await collect(agent.resume('t1', { c2: { type: 'approve' } }));
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('free\n');
  });

  it('follows the session mode: never asks with "never", asks for every skill tool with "always"', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('a')}` } }]))
      .respond(new AIMessage('ok'))
      .respond(
        callTools([
          { name: 'append', args: { line: 'x', file: file('b') }, id: 'k1' },
          { name: 'load_skill', args: { name: 'help' }, id: 'k2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    const never = await collect(agent.stream('go', { threadId: 't1', approval: 'never' }));
    expect(ofType(never, 'approval-request')).toEqual([]);
    expect(existsSync(file('a'))).toBe(true);
    const always = await collect(agent.stream('go', { threadId: 't2', approval: 'always' }));
    expect(ofType(always, 'approval-request')[0]?.requests.map((r) => [r.id, r.reason])).toEqual([
      ['k1', 'mode-always'],
    ]);
  });

  it('validates decisions before resuming', async () => {
    const { agent, model } = await setup();
    model.respond(callTools([{ name: 'run_bash', args: { command: 'true' }, id: 'a' }]));
    await collect(agent.stream('go', { threadId: 't1' }));
    await expect(collect(agent.resume('t1', {}))).rejects.toBeInstanceOf(AgentError);
    await expect(collect(agent.resume('t1', {}))).rejects.toMatchObject({ code: 'missing-decision' });
    await expect(collect(agent.resume('t1', { a: { type: 'maybe' } as never }))).rejects.toMatchObject({
      code: 'unknown-decision',
    });
    await expect(collect(agent.resume('t9', { a: { type: 'approve' } }))).rejects.toMatchObject({
      code: 'nothing-to-resume',
    });
  });

  it('askRawCommands: a raw command asks even under "never"; other tools keep the mode', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(
        callTools([
          { name: 'run_bash', args: { command: `touch ${file('raw')}` }, id: 'r1' },
          { name: 'wipe', args: { file: file('gone') }, id: 'r2' },
        ]),
      )
      .respond(new AIMessage('ok'));
    const events = await collect(
      agent.stream('go', { threadId: 't1', approval: 'never', askRawCommands: true }),
    );
    // The raw command asks; `approval: required` is still lifted by "never".
    expect(ofType(events, 'approval-request')[0]?.requests.map((r) => [r.tool, r.reason])).toEqual([
      ['run_bash', 'raw-command'],
    ]);
    expect(existsSync(file('raw'))).toBe(false);
  });

  it('askRawCommands: approving a raw command for the session approves that call once; a whole-tool grant never lifts it', async () => {
    // A server's API session: raw commands ask every time; only a command pattern (a session rule) lets later ones
    // run unasked. An API client answering "the whole tool for the session" must not turn the tool into a shell.
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('one')}` }, id: 'r1' }]))
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('two')}` }, id: 'r2' }]))
      .respond(new AIMessage('ok'));
    const turn = { approval: 'ask', askRawCommands: true } as const;
    await collect(agent.stream('go', { threadId: 't1', ...turn }));
    const resumed = await collect(agent.resume('t1', { r1: { type: 'approve', scope: 'session' } }, turn));
    expect(existsSync(file('one'))).toBe(true);
    expect(ofType(resumed, 'approval-request')[0]?.requests.map((r) => [r.id, r.reason])).toEqual([
      ['r2', 'raw-command'],
    ]);
    expect(existsSync(file('two'))).toBe(false);
    expect((await agent.getState('t1')).sessionApprovals ?? []).toEqual([]);
  });

  it('a new message instead of a decision abandons the pending calls and repairs them', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('never')}` }, id: 'p' }]))
      .respond(new AIMessage('fine'));
    await collect(agent.stream('go', { threadId: 't1' }));
    const events = await collect(agent.stream('actually, never mind', { threadId: 't1' }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    const state = await agent.getState('t1');
    expect(state.pendingApprovals).toEqual([]);
    expect(state.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'human', 'ai']);
    expect((state.messages[2] as ToolMessage).status).toBe('error');
    // Reported: without a journal the model was told the call "may have had its effect", though it was only waiting
    // for the user's answer, which this process saw.
    expect((state.messages[2] as ToolMessage).content).toBe(UNANSWERED_APPROVAL_RESULT);
    expect(existsSync(file('never'))).toBe(false);
    // The placeholder is reported as a new message; the re-appended human message is not.
    expect(ofType(events, 'message').map((e) => e.message.type)).toEqual(['tool', 'ai']);
  });
});

describe('approvals: decisions bind on resume', () => {
  it('a rejected call stays rejected even when the resuming turn runs with approval "never"', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('nope')}` }, id: 'r1' }]))
      .respond(new AIMessage('ok'));
    await collect(agent.stream('go', { threadId: 't1' }));
    await collect(agent.resume('t1', { r1: { type: 'reject' } }, { approval: 'never' }));
    expect(existsSync(file('nope'))).toBe(false);
    const [result] = await toolMessages(agent, 't1');
    expect(result?.content).toBe('The user rejected this call; it did not run.');
  });
});

describe('approvals: a decision belongs to one call', () => {
  it('a later call that reuses an approved call id is asked about again, not run on the old approval', async () => {
    const { agent, model, file } = await setup();
    // Some OpenAI-compatible servers number calls per response (call_0, call_1, …), so ids repeat across turns.
    model
      .respond(callTools([{ name: 'run_bash', args: { command: 'echo harmless' }, id: 'call_0' }]))
      .respond(callTools([{ name: 'run_bash', args: { command: `touch ${file('pwned')}` }, id: 'call_0' }]))
      .respond(new AIMessage('done'));
    await collect(agent.stream('go', { threadId: 't1' }));
    const resumed = await collect(agent.resume('t1', { call_0: { type: 'approve' } }));
    expect(existsSync(file('pwned'))).toBe(false);
    const [request] = ofType(resumed, 'approval-request');
    expect(request?.requests.map((r) => r.args)).toEqual([{ command: `touch ${file('pwned')}` }]);
    expect(request?.requests[0]?.id).not.toBe('call_0');
    expect(ofType(resumed, 'done')[0]?.status).toBe('interrupted');
  });

  it('two calls sharing an id in one message get their own decisions', async () => {
    const { agent, model, file } = await setup();
    model
      .respond(
        callTools([
          { name: 'run_bash', args: { command: `touch ${file('bad')}` }, id: 'dup' },
          { name: 'run_bash', args: { command: `touch ${file('good')}` }, id: 'dup' },
        ]),
      )
      .respond(new AIMessage('done'));
    const first = await collect(agent.stream('go', { threadId: 't1' }));
    const requests = ofType(first, 'approval-request')[0]?.requests ?? [];
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((r) => r.id)).size).toBe(2);
    const [bad, good] = requests;
    await collect(agent.resume('t1', { [bad!.id]: { type: 'reject' }, [good!.id]: { type: 'approve' } }));
    expect(existsSync(file('good'))).toBe(true);
    expect(existsSync(file('bad'))).toBe(false);
    const results = await toolMessages(agent, 't1');
    expect(new Set(results.map((m) => m.tool_call_id)).size).toBe(2);
  });

  it('a streamed reply with two calls sharing an id: approving the first never runs the rejected second', async () => {
    const fx = await skillsFixture(files);
    const { createScriptedModel } = await import('@birdie/providers');
    const pwned = join(fx.dir.path, 'PWNED');
    // Streamed replies reach the node as AIMessageChunks, whose stored form rebuilds calls from their chunks.
    const model = createScriptedModel([
      {
        tool_calls: [
          { name: 'run_bash', args: { command: 'echo harmless' }, id: 'dup' },
          { name: 'run_bash', args: { command: `touch ${pwned}` }, id: 'dup' },
        ],
      },
      { text: 'done' },
    ]);
    const agent = agentOn(cleanups, fx, model);
    const first = await collect(agent.stream('go', { threadId: 't1' }));
    const [harmless, hostile] = ofType(first, 'approval-request')[0]?.requests ?? [];
    expect(hostile?.args).toEqual({ command: `touch ${pwned}` });
    const resumed = await collect(
      agent.resume('t1', { [harmless!.id]: { type: 'approve' }, [hostile!.id]: { type: 'reject' } }),
    );
    expect(existsSync(pwned)).toBe(false);
    expect(ofType(resumed, 'tool-end').map((e) => [e.id, e.ok])).toEqual(
      expect.arrayContaining([
        [harmless!.id, true],
        [hostile!.id, false],
      ]),
    );
  });

  it('renamed calls keep their tool_use content blocks in step (Anthropic-style messages)', async () => {
    const { agent, model } = await setup();
    const message = (command: string, id: string) =>
      new AIMessage({
        content: [{ type: 'tool_use', id, name: 'run_bash', input: { command } }],
        tool_calls: [{ id, name: 'run_bash', args: { command }, type: 'tool_call' }],
      });
    model
      .respond(message('echo one', 'toolu_1'))
      .respond(message('echo two', 'toolu_1'))
      .respond(new AIMessage('done'));
    await collect(agent.stream('go', { threadId: 't1' }));
    await collect(agent.resume('t1', { toolu_1: { type: 'approve' } }));
    const last = (await agent.getState('t1')).messages.at(-1) as AIMessage;
    const callId = last.tool_calls?.[0]?.id;
    expect(callId).not.toBe('toolu_1');
    expect((last.content as Array<{ id: string }>)[0]?.id).toBe(callId);
  });
});

describe('approvals: what runs is what was shown', () => {
  it('asks again when the call changed between the question and the answer (a skill reload changed a default)', async () => {
    const skill = (target: string) =>
      toolSkill('cleanup', [
        {
          name: 'remove',
          entrypoint: 'bash:rm -f {file}',
          schema: `schema:\n  type: object\n  properties:\n    file:\n      type: string\n      default: ${target}\n`,
          extra: 'approval: required\n',
        },
      ]);
    const { fx, agent, model } = await fixture({ 'cleanup/SKILL.md': skill('old.txt') });
    const { writeFileSync } = await import('node:fs');
    for (const name of ['old.txt', 'new.txt']) writeFileSync(join(fx.dir.path, name), 'x');
    model.respond(callTools([{ name: 'remove', args: {}, id: 'r1' }])).respond(new AIMessage('removed'));
    const first = await collect(agent.stream('clean', { threadId: 't1' }));
    expect(ofType(first, 'approval-request')[0]?.requests[0]?.args).toEqual({ file: 'old.txt' });

    writeFileSync(join(fx.dir.path, 'cleanup/SKILL.md'), skill('new.txt'));
    await fx.registry.reload();
    // The user approved removing old.txt; the call would now remove new.txt: it is put to the user again.
    const second = await collect(agent.resume('t1', { r1: { type: 'approve' } }));
    expect(existsSync(join(fx.dir.path, 'new.txt'))).toBe(true);
    expect(ofType(second, 'tool-start')).toEqual([]);
    expect(ofType(second, 'approval-request')[0]?.requests.map((r) => r.args)).toEqual([{ file: 'new.txt' }]);
    const pending = (await agent.getState('t1')).pendingApprovals;
    expect(pending.map((r) => r.args)).toEqual([{ file: 'new.txt' }]);

    await collect(agent.resume('t1', { r1: { type: 'approve' } }));
    expect(existsSync(join(fx.dir.path, 'new.txt'))).toBe(false);
    expect(existsSync(join(fx.dir.path, 'old.txt'))).toBe(true);
  });
});
