import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeChatModel,
  createChatModel,
  type ProviderConfig,
  ProviderError,
  resolveProviderConfig,
} from '../src/index.js';
import { rejection, useTempDir } from './helpers.js';

const AGENT = fileURLToPath(new URL('./fixtures/acp/echo-agent.mjs', import.meta.url));
const dir = useTempDir('birdie-providers-acp-');
const models: BaseChatModel[] = [];
afterEach(async () => {
  while (models.length > 0) await closeChatModel(models.pop()!);
});

type Decision = { type: 'approve' } | { type: 'reject'; message?: string };

/** What the agent node of @birdie/graph gives a model call (see its MODEL_CHANNEL), played by the test. */
class Channel extends BaseCallbackHandler {
  name = 'birdie-model-channel';
  activity: unknown[] = [];
  asked: unknown[] = [];
  constructor(
    readonly threadId: string,
    readonly cwd: string,
    private readonly decision: Decision = { type: 'approve' },
  ) {
    super();
  }
  toolActivity(activity: unknown) {
    this.activity.push(activity);
  }
  async approve(ask: unknown) {
    this.asked.push(ask);
    return this.decision;
  }
}

async function acpModel(extra: Partial<ProviderConfig> = {}, env: Record<string, string> = {}) {
  const log = join(dir.path, 'agent.log');
  const { config } = await resolveProviderConfig({
    env: {},
    inline: JSON.stringify({
      vendor: 'acp',
      command: 'node',
      args: [AGENT],
      env: { ACP_LOG: log, ...env },
      ...extra,
    }),
  });
  const model = await createChatModel(config, { cwd: dir.path });
  models.push(model);
  const events = async () =>
    (await readFile(log, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { model, config, events };
}

describe('vendor acp: the config', () => {
  it('needs a command, and keeps command, args and env to the acp vendor', async () => {
    const missing = await rejection(resolveProviderConfig({ env: {}, inline: '{"vendor":"acp"}' }));
    expect(missing).toMatchObject({ code: 'config-invalid', field: 'command' });
    const elsewhere = await rejection(
      resolveProviderConfig({ env: {}, inline: '{"vendor":"ollama","command":"x"}' }),
    );
    expect(elsewhere.message).toBe(
      'command is only used by the acp vendor, not ollama (from inline LLM_PROVIDER_CONFIG)',
    );
    const { config, sources } = await resolveProviderConfig({
      env: {},
      inline: '{"vendor":"acp","command":"claude-code-acp","args":["--x"]}',
    });
    expect(config).toMatchObject({
      vendor: 'acp',
      model: 'default',
      command: 'claude-code-acp',
      args: ['--x'],
    });
    expect(sources.command).toBe('inline LLM_PROVIDER_CONFIG');
  });

  it('points at the field, line and column of a bad value in a file', async () => {
    const file = await dir.file(
      'config.json',
      '{\n  "provider": {\n    "vendor": "acp",\n    "command": "node",\n    "args": ["ok", 3]\n  }\n}\n',
    );
    const error = await rejection(resolveProviderConfig({ env: {}, file }));
    expect(error).toMatchObject({ code: 'config-invalid', line: 5, field: 'args.1' });
    expect(error.message).toContain('args.1 must be a string');
  });

  it('resolves a relative command against the config file that names it', async () => {
    const file = await dir.file('config.json', '{"vendor":"acp","command":"./bin/agent"}');
    const { config } = await resolveProviderConfig({ env: {}, file });
    expect(config.command).toBe(join(dir.path, 'bin', 'agent'));
  });
});

describe('vendor acp: an ACP agent as the chat model', () => {
  it('streams the agent message chunks as tokens and records its session on the reply', async () => {
    const { model, events } = await acpModel();
    const tokens: string[] = [];
    const reply = await model.invoke([new HumanMessage('hello there')], {
      callbacks: [{ handleLLMNewToken: (token: string) => void tokens.push(token) }],
    });
    expect(reply.text).toBe('echo: hello there');
    expect(tokens).toEqual(['echo: ', 'hello there']);
    expect(reply.response_metadata).toMatchObject({ model_provider: 'acp', stop_reason: 'end_turn' });
    expect(reply.response_metadata.acp_session_id).toMatch(/^s1-/);
    expect(model.bindTools?.([])).toBe(model);
    const log = await events();
    // birdie offers the inner agent neither file access nor a terminal: it brings its own tools.
    expect(log[0]).toMatchObject({
      initialize: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    expect(log[1]).toMatchObject({ new: expect.stringMatching(/^s1-/), cwd: dir.path });
  });

  it('one session per thread, and only the new user text each turn', async () => {
    const { model, events } = await acpModel();
    const a = new Channel('thread-a', dir.path);
    const first = await model.invoke([new HumanMessage('one')], { callbacks: [a] });
    const history = [new HumanMessage('one'), first, new HumanMessage('two')];
    expect((await model.invoke(history, { callbacks: [a] })).text).toBe('echo: two');
    await model.invoke([new HumanMessage('other thread')], {
      callbacks: [new Channel('thread-b', dir.path)],
    });
    const prompts = (await events()).filter((e) => 'prompt' in e);
    expect(prompts.map((e) => e.prompt)).toEqual(['one', 'two', 'other thread']);
    expect(prompts[0]?.session).toBe(prompts[1]?.session);
    expect(prompts[2]?.session).not.toBe(prompts[0]?.session);
  });

  it('after a restart loads the session the thread recorded, without showing its replay', async () => {
    const first = await acpModel();
    const reply = await first.model.invoke([new HumanMessage('one')], {
      callbacks: [new Channel('t', dir.path)],
    });
    await closeChatModel(first.model);
    const second = await acpModel();
    const history = [new HumanMessage('one'), reply, new HumanMessage('two')];
    const answer = await second.model.invoke(history, { callbacks: [new Channel('t', dir.path)] });
    expect(answer.text).toBe('echo: two');
    expect(answer.response_metadata.acp_session_id).toBe(reply.response_metadata.acp_session_id);
    const log = await second.events();
    expect(log.filter((e) => 'load' in e)).toEqual([
      { load: reply.response_metadata.acp_session_id, cwd: dir.path },
    ]);
    expect(log.filter((e) => 'prompt' in e).map((e) => e.prompt)).toEqual(['one', 'two']);
  });

  it('an agent that cannot load sessions gets a new one with a short summary of the thread', async () => {
    const { model, events } = await acpModel({}, { ACP_NO_LOAD: '1' });
    const history = [
      new HumanMessage('my name is Ada'),
      new AIMessage({ content: 'Hello Ada', response_metadata: { acp_session_id: 'gone' } }),
      new HumanMessage('what is my name?'),
    ];
    await model.invoke(history, { callbacks: [new Channel('t', dir.path)] });
    const [prompt] = (await events()).filter((e) => 'prompt' in e);
    expect(prompt?.prompt).toBe(
      'Earlier in this conversation (a summary; you cannot see the rest):\nUser: my name is Ada\nAssistant: Hello Ada\n\nThe user now says:\nwhat is my name?',
    );
  });

  it('model picks one of the agent models, or one of its modes; an unknown one lists what there is', async () => {
    const smart = await acpModel({ model: 'Smart' });
    await smart.model.invoke([new HumanMessage('x')]);
    expect((await smart.events()).filter((e) => 'setConfigOption' in e)).toEqual([
      { setConfigOption: 'model', value: 'smart' },
    ]);
    await closeChatModel(smart.model);
    const mode = await acpModel({ model: 'architect' });
    await mode.model.invoke([new HumanMessage('x')]);
    expect((await mode.events()).filter((e) => 'setMode' in e || 'setConfigOption' in e)).toEqual([
      { setConfigOption: 'model', value: 'smart' },
      { setMode: 'architect' },
    ]);
    const unknown = await acpModel({ model: 'genius' });
    const error = await rejection(unknown.model.invoke([new HumanMessage('x')]));
    expect(error.code).toBe('config-invalid');
    expect(error.message).toContain(
      'offers no model or agent named "genius"; it offers: fast, smart, code, architect',
    );
  });

  it("shows the agent's tool calls on the channel and answers its permission request with the channel's decision", async () => {
    const { model, events } = await acpModel();
    const yes = new Channel('t1', dir.path);
    expect((await model.invoke([new HumanMessage('use a tool')], { callbacks: [yes] })).text).toBe(
      'Tool ran.',
    );
    expect(yes.asked).toEqual([
      { id: 'tc1', tool: 'execute', args: { command: 'make clean' }, description: 'Run make clean' },
    ]);
    expect(yes.activity).toEqual([
      {
        id: 'tc1',
        title: 'Run make clean',
        kind: 'execute',
        status: 'pending',
        input: { command: 'make clean' },
      },
      {
        id: 'tc1',
        title: 'Run make clean',
        kind: 'execute',
        status: 'completed',
        input: { command: 'make clean' },
        output: 'cleaned',
      },
    ]);
    const no = new Channel('t2', dir.path, { type: 'reject', message: 'not now' });
    expect((await model.invoke([new HumanMessage('use a tool')], { callbacks: [no] })).text).toBe(
      'Tool refused.',
    );
    // Outside birdie's graph there is nobody to ask: a provider never prompts, so it refuses.
    expect((await model.invoke([new HumanMessage('use a tool')])).text).toBe('Tool refused.');
    expect((await events()).filter((e) => 'permission' in e)).toEqual([
      { permission: { outcome: 'selected', optionId: 'yes' } },
      { permission: { outcome: 'selected', optionId: 'no' } },
      { permission: { outcome: 'selected', optionId: 'no' } },
    ]);
  });

  it('an abort cancels the prompt in the agent and rejects the call', async () => {
    const { model, events } = await acpModel();
    const controller = new AbortController();
    const tokens: string[] = [];
    const call = model.invoke([new HumanMessage('be slow')], {
      signal: controller.signal,
      callbacks: [
        {
          handleLLMNewToken: (token: string) => {
            tokens.push(token);
            controller.abort(new Error('stop'));
          },
        },
      ],
    });
    await expect(call).rejects.toThrow();
    expect(tokens).toEqual(['working…']);
    expect((await events()).filter((e) => 'cancel' in e)).toHaveLength(1);
  });

  it('an agent that dies mid-turn is a typed error with its last words, and the next call starts it again', async () => {
    const { model } = await acpModel();
    const error = await rejection(model.invoke([new HumanMessage('crash now')]));
    expect(error.code).toBe('agent-failed');
    expect(error.message).toContain('echo-agent: crashing on purpose');
    expect((await model.invoke([new HumanMessage('again')])).text).toBe('echo: again');
  });

  it('a command that does not exist is a typed error', async () => {
    const { config } = await resolveProviderConfig({
      env: {},
      inline: '{"vendor":"acp","command":"no-such-acp-agent-here"}',
    });
    const model = await createChatModel(config);
    models.push(model);
    const error = await rejection(model.invoke([new HumanMessage('x')]));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('agent-failed');
    expect(error.message).toContain('could not be started');
  });
});
