import { createScriptedModel } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { collect, ofType, skillsFixture, stringArg, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();

describe('streaming with the providers scripted model', () => {
  it('streams the answer token by token, then reports the message and its usage', async () => {
    const fx = await skillsFixture({
      'echo/SKILL.md': toolSkill('echo', [
        { name: 'say', entrypoint: 'bash:printf "%s" {text}', schema: stringArg('text') },
      ]),
    });
    cleanups.push(() => fx.dir.cleanup());
    const model = createScriptedModel({
      replies: [
        { tool_calls: [{ name: 'say', args: { text: 'from the tool' }, id: 'k1' }] },
        { text: 'The tool said: from the tool. That is all.', stream: true },
      ],
    });
    const agent = createAgent({ model, registry: fx.registry, policy: fx.policy });
    cleanups.push(() => agent.close());
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    const tokens = ofType(events, 'token');
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map((t) => t.text).join('')).toBe('The tool said: from the tool. That is all.');
    const finalMessage = ofType(events, 'message').at(-1)?.message;
    expect(finalMessage?.type).toBe('ai');
    expect(finalMessage?.content).toBe('The tool said: from the tool. That is all.');
    // Tokens come before the finished message; usage follows each model message.
    const types = events.map((e) => e.type);
    expect(types.lastIndexOf('token')).toBeLessThan(types.lastIndexOf('message'));
    expect(ofType(events, 'usage').length).toBe(2);
    expect(ofType(events, 'usage').every((u) => u.inputTokens > 0 && u.outputTokens > 0)).toBe(true);
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ id: 'k1', ok: true, output: 'from the tool' });
  });
});
