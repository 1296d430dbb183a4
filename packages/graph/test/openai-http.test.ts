import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { fakeOpenAI } from './fake-openai.js';
import { agentSpec, collect, ofType, skillsFixture, useCleanups, withAgents } from './helpers.js';

const cleanups = useCleanups();

const REVIEWER = 'You are the reviewer: never accept a claim without a source.';
const RESEARCHER = 'You are the researcher: look things up and answer with facts only.';

const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

describe('agents against an OpenAI-compatible HTTP server', () => {
  it("sends the agent's body in the first call's system prompt, and the subagent's in the subagent's call", async () => {
    const server = await fakeOpenAI(cleanups, (request) => {
      const users = request.messages.filter((m) => m.role === 'user').map((m) => text(m.content));
      if (request.messages.some((m) => m.role === 'tool')) return { text: 'Confirmed: owls hunt at night.' };
      if (users[0] === 'find facts about owls') return { text: 'Owls hunt at night.' };
      return { call: { name: 'task', args: { agent: 'researcher', prompt: 'find facts about owls' } } };
    });
    const fx = await skillsFixture({});
    const agents = [
      agentSpec('reviewer', { body: REVIEWER, subagents: ['researcher'] }),
      agentSpec('researcher', { body: RESEARCHER, model: 'openai:gpt-small' }),
    ];
    const agent = createAgent({
      model: server.model('gpt-main'),
      registry: withAgents(fx.registry, agents),
      policy: fx.policy,
      modelFor: async (spec) => server.model(spec.slice(spec.indexOf(':') + 1)),
    });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });

    const events = await collect(
      agent.stream('Do owls hunt at night?', { threadId: 's1', agent: 'reviewer' }),
    );
    expect(ofType(events, 'error')).toEqual([]);
    const [first, sub, last] = server.requests;
    expect(server.requests).toHaveLength(3);

    expect(first?.model).toBe('gpt-main');
    expect(first?.messages[0]?.role).toBe('system');
    expect(text(first?.messages[0]?.content)).toContain(REVIEWER);
    expect(text(first?.messages[0]?.content)).not.toContain(RESEARCHER);
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['task']);
    expect(first?.tools?.[0]?.function.parameters).toMatchObject({
      properties: { agent: { enum: ['researcher'] } },
    });

    expect(sub?.model).toBe('gpt-small');
    expect(sub?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(text(sub?.messages[0]?.content)).toContain(RESEARCHER);
    expect(text(sub?.messages[0]?.content)).not.toContain(REVIEWER);
    expect(text(sub?.messages[1]?.content)).toBe('find facts about owls');

    expect(last?.model).toBe('gpt-main');
    expect(last?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Owls hunt at night.' });
    const answer = ofType(events, 'message').at(-1);
    expect([answer?.message.text, answer?.agent]).toEqual(['Confirmed: owls hunt at night.', ['reviewer']]);
    const nested = ofType(events, 'token').filter((e) => e.agent?.join('/') === 'reviewer/researcher');
    expect(nested.map((e) => e.text).join('')).toBe('Owls hunt at night.');
  });
});
