import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { callTools, collect, knowledgeSkill, skillsFixture } from './helpers.js';

describe('what checkpoints hold', () => {
  it('messages and loaded skill names only: no injected bodies, memory or per-turn context', async () => {
    const fx = await skillsFixture({
      'always/SKILL.md': knowledgeSkill('always', 'ALWAYS_BODY_MARKER', 'always_inject: true\n'),
      'deploy/SKILL.md': knowledgeSkill('deploy', 'TRIGGERED_BODY_MARKER', 'triggers: [deploy]\n'),
    });
    const store = openStore({ file: join(fx.dir.path, 'birdie.db') });
    try {
      const model = fakeModel()
        .respond(callTools([{ name: 'load_skill', args: { name: 'deploy' } }]))
        .respond(new AIMessage('ok'));
      const agent = createAgent({
        model,
        registry: fx.registry,
        policy: fx.policy,
        checkpointer: store.checkpointer,
      });
      await collect(
        agent.stream('please deploy', { threadId: 's1', memory: ['MEMORY_MARKER'], cwd: fx.dir.path }),
      );
      // The model did get all of it…
      const system = String(model.calls[0]?.messages[0]?.content);
      for (const marker of ['ALWAYS_BODY_MARKER', 'TRIGGERED_BODY_MARKER', 'MEMORY_MARKER'])
        expect(system).toContain(marker);
      // …but the checkpoints only have the conversation (the load_skill result is a message the model asked for).
      let checkpoints = 0;
      for await (const tuple of store.checkpointer.list({ configurable: { thread_id: 's1' } })) {
        checkpoints += 1;
        const saved = JSON.stringify({
          c: tuple.checkpoint,
          m: tuple.metadata,
          cfg: tuple.config,
          w: tuple.pendingWrites,
        });
        for (const marker of [
          'ALWAYS_BODY_MARKER',
          'MEMORY_MARKER',
          'birdie_snapshot',
          'birdie_memory',
          'birdie_cwd',
        ]) {
          expect(saved).not.toContain(marker);
        }
      }
      expect(checkpoints).toBeGreaterThan(2);
      const state = await agent.getState('s1');
      expect(state.loadedSkills).toEqual(['deploy']);
      expect(Object.keys(state).sort()).toEqual([
        'compactions',
        'loadedSkills',
        'messages',
        'pendingApprovals',
        'sessionApprovals',
      ]);
      expect(state.compactions).toEqual([]);
      await agent.close();
    } finally {
      await store.close();
      await fx.dir.cleanup();
    }
  });
});
