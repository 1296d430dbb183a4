import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, type ApprovalDecision, MODEL_CHANNEL, type ModelChannel } from '../src/index.js';
import { agentOverModel, agentSetup, callTools, ofType, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();
const fixture = agentSetup(cleanups);

/**
 * A model that is an agent of its own (as the `acp` vendor is): it reports one tool call of its agent, asks before
 * running it, and answers with what it was told.
 */
class AgentModel extends BaseChatModel {
  seen: Array<{ threadId: string; cwd: string } | undefined> = [];
  decisions: ApprovalDecision[] = [];

  _llmType() {
    return 'agent-model';
  }

  override bindTools() {
    return this as never;
  }

  async _generate(
    _messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    run?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const channel = run?.handlers.find((h) => h.name === MODEL_CHANNEL) as unknown as
      | ModelChannel
      | undefined;
    this.seen.push(channel ? { threadId: channel.threadId, cwd: channel.cwd } : undefined);
    let text = 'no channel';
    if (channel) {
      channel.toolActivity({ id: 't1', title: 'rm -rf build', kind: 'execute', status: 'pending' });
      const decision = await channel.approve({
        id: 't1',
        tool: 'Bash',
        args: { command: 'rm -rf build' },
        description: 'Run rm -rf build',
      });
      this.decisions.push(decision);
      channel.toolActivity({
        id: 't1',
        title: 'rm -rf build',
        status: decision.type === 'approve' ? 'completed' : 'failed',
      });
      text = `decision: ${decision.type}`;
    }
    const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
    await run?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}

const agentOver = (model: BaseChatModel) => agentOverModel(cleanups, model);

describe('the model channel: a model that runs its own agent', () => {
  it('finds the thread and folder, shows its tool calls and gets a decision through a model-approval event', async () => {
    const model = new AgentModel({});
    const { agent, cwd } = await agentOver(model);
    const events: AgentEvent[] = [];
    for await (const event of agent.stream('clean up', { threadId: 'inner-1' })) {
      events.push(event);
      if (event.type === 'model-approval') event.respond({ type: 'approve' });
    }
    expect(model.seen).toEqual([{ threadId: 'inner-1', cwd }]);
    expect(events.map((e) => e.type)).toEqual([
      'model-tool',
      'model-approval',
      'model-tool',
      'token',
      'message',
      'done',
    ]);
    const [asked] = ofType(events, 'model-approval');
    expect(asked?.request).toMatchObject({
      id: 't1',
      tool: 'Bash',
      args: { command: 'rm -rf build' },
      description: 'Run rm -rf build',
      reason: 'model-agent',
    });
    expect(asked?.request.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(ofType(events, 'model-tool').map((e) => e.status)).toEqual(['pending', 'completed']);
    expect(ofType(events, 'token').map((e) => e.text)).toEqual(['decision: approve']);
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok' }]);
  });

  it('mode never approves without asking; a rejection reaches the model', async () => {
    const model = new AgentModel({});
    const { agent } = await agentOver(model);
    const never: AgentEvent[] = [];
    for await (const event of agent.stream('a', { threadId: 'inner-2', approval: 'never' }))
      never.push(event);
    expect(ofType(never, 'model-approval')).toEqual([]);
    for await (const event of agent.stream('b', { threadId: 'inner-2' }))
      if (event.type === 'model-approval') event.respond({ type: 'reject', message: 'no' });
    expect(model.decisions).toEqual([{ type: 'approve' }, { type: 'reject', message: 'no' }]);
  });

  it('an abort answers a question nobody answered with reject, and the run ends aborted', async () => {
    const model = new AgentModel({});
    const { agent } = await agentOver(model);
    const controller = new AbortController();
    const types: string[] = [];
    for await (const event of agent.stream('c', { threadId: 'inner-3', signal: controller.signal })) {
      types.push(event.type);
      if (event.type === 'model-approval') controller.abort();
    }
    expect(model.decisions).toEqual([{ type: 'reject', message: 'The turn was cancelled.' }]);
    expect(types.at(-1)).toBe('done');
  });

  it('other models never see it: a plain model answers as before', async () => {
    const { model, agent } = await fixture({});
    model.respond(new AIMessage('plain'));
    const types: string[] = [];
    for await (const event of agent.stream('hi', { threadId: 'plain' })) types.push(event.type);
    expect(types).toEqual(['token', 'message', 'done']);
  });
});

describe("files: the turn's file access reaches node: tools", () => {
  it('a node: tool reads and writes through context.files when the turn gives one', async () => {
    const files = {
      'edit/SKILL.md': toolSkill('edit', [{ name: 'shout', entrypoint: 'node:tools.mjs#shout' }]),
      'edit/tools.mjs': `export async function shout(_args, { files, cwd }) {
  if (!files) return 'disk';
  const path = cwd + '/notes.txt';
  await files.writeTextFile(path, (await files.readTextFile(path)).toUpperCase());
  return 'through the application';
}
`,
    };
    const { model, agent, fx } = await fixture(files);
    const buffers = new Map([[`${fx.dir.path}/notes.txt`, 'unsaved text']]);
    const access = {
      readTextFile: async (path: string) => buffers.get(path) ?? '',
      writeTextFile: async (path: string, content: string) => {
        buffers.set(path, content);
      },
    };
    model
      .respond(callTools([{ name: 'shout' }]))
      .respond(new AIMessage('done'))
      .respond(callTools([{ name: 'shout' }]))
      .respond(new AIMessage('done'));
    const outputs: string[] = [];
    for await (const e of agent.stream('shout', { threadId: 'files-1', files: access }))
      if (e.type === 'tool-end') outputs.push(e.output);
    for await (const e of agent.stream('again, no access', { threadId: 'files-1' }))
      if (e.type === 'tool-end') outputs.push(e.output);
    expect(outputs).toEqual(['through the application', 'disk']);
    expect(buffers.get(`${fx.dir.path}/notes.txt`)).toBe('UNSAVED TEXT');
  });
});
