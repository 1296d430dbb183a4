import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { createAgent, SUMMARY_HEADER } from '../src/index.js';
import { callTools, collect, ofType, skillsFixture, textOf, useCleanups } from './helpers.js';

const cleanups = useCleanups();

const usage = (m: AIMessage) => {
  m.usage_metadata = { input_tokens: 5, output_tokens: 1, total_tokens: 6 };
  return m;
};

/** Three scripted models named by tier, and an agent that resolves `fast|default|strong` and `vendor:model` to them. */
async function routed() {
  const fx = await skillsFixture({});
  const tiers = { fast: fakeModel(), default: fakeModel(), strong: fakeModel() };
  const asked: string[] = [];
  const agent = createAgent({
    model: tiers.default,
    modelName: 'test:default-model',
    registry: fx.registry,
    policy: fx.policy,
    tiers: ['fast', 'default', 'strong'],
    modelFor: async (spec) => {
      asked.push(spec);
      if (spec in tiers) return { model: tiers[spec as keyof typeof tiers], name: `test:${spec}-model` };
      if (spec === 'other:model') return tiers.strong as BaseChatModel;
      throw new Error(`no model ${spec}`);
    },
    options: { cwd: fx.dir.path },
  });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  return { agent, tiers, asked };
}

describe('the model router', () => {
  it('switch_model moves the rest of the turn to the tier; the next turn starts on the default again', async () => {
    const { agent, tiers } = await routed();
    expect((await agent.toolsFor('s1')).map((t) => t.name)).toContain('switch_model');
    tiers.default
      .respond(usage(callTools([{ name: 'switch_model', args: { tier: 'strong', reason: 'a hard proof' } }])))
      .respond(usage(new AIMessage('easy answer')));
    tiers.strong.respond(usage(new AIMessage('deep answer')));
    const events = await collect(agent.stream('prove it', { threadId: 's1' }));
    expect(ofType(events, 'usage').map((u) => u.model)).toEqual(['test:default-model', 'test:strong-model']);
    const [switched] = ofType(events, 'tool-end');
    expect(switched).toMatchObject({ name: 'switch_model', ok: true });
    expect(switched?.output).toBe(
      'Switched to the strong model (test:strong-model) for the rest of this turn.',
    );
    // The strong model saw the whole turn, the switch included.
    const seen = tiers.strong.calls[0]?.messages as BaseMessage[];
    expect(seen.map((m) => m.type)).toEqual(['system', 'human', 'ai', 'tool']);

    const next = await collect(agent.stream('thanks', { threadId: 's1' }));
    expect(ofType(next, 'usage').map((u) => u.model)).toEqual(['test:default-model']);
  });

  it('a tier that cannot be resolved is a failed call, and the turn goes on with the current model', async () => {
    const fx = await skillsFixture({});
    const model = fakeModel()
      .respond(callTools([{ name: 'switch_model', args: { tier: 'fast', reason: 'quick' } }]))
      .respond(new AIMessage('still here'));
    const agent = createAgent({
      model,
      registry: fx.registry,
      policy: fx.policy,
      tiers: ['fast'],
      modelFor: async () => {
        throw new Error('no key for the fast tier');
      },
    });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });
    const events = await collect(agent.stream('hi', { threadId: 's1' }));
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ name: 'switch_model', ok: false });
    expect(ofType(events, 'tool-end')[0]?.output).toContain('no key for the fast tier');
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(textOf((await agent.getState('s1')).messages.at(-1))).toBe('still here');
  });

  it('the turn may name a model (a tier or vendor:model, as /model does); usage names it', async () => {
    const { agent, tiers, asked } = await routed();
    tiers.strong.respond(usage(new AIMessage('from strong'))).respond(usage(new AIMessage('from other')));
    const first = await collect(agent.stream('hi', { threadId: 's1', model: 'strong' }));
    expect(ofType(first, 'usage').map((u) => u.model)).toEqual(['test:strong-model']);
    const second = await collect(agent.stream('hi', { threadId: 's1', model: 'other:model' }));
    expect(ofType(second, 'usage').map((u) => u.model)).toEqual(['other:model']);
    expect(asked).toEqual(['strong', 'other:model']);
    expect(tiers.default.calls.length).toBe(0);
  });

  it('with a fast tier, the fast model writes the summaries', async () => {
    const { agent, tiers } = await routed();
    for (let i = 1; i <= 3; i += 1) tiers.default.respond(new AIMessage(`answer ${i}`));
    tiers.fast.respond((messages: BaseMessage[]) => {
      const request = messages.find((m) => HumanMessage.isInstance(m) && m.text.startsWith(SUMMARY_HEADER));
      return new AIMessage(request ? 'FAST SUMMARY' : 'not a summary request');
    });
    for (let i = 1; i <= 3; i += 1) await agent.invoke(`question ${i}`, { threadId: 's1' });
    const result = await agent.compact('s1');
    expect(result?.record).toMatchObject({ model: 'test:fast-model', summary: 'FAST SUMMARY' });
    expect(tiers.fast.calls.length).toBe(1);
  });
});
