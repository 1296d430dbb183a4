import { describe, expect, it } from 'vitest';
import { BUILTIN_ENTRYPOINTS } from './builtin.js';
import { checkEntrypoint, resolveEntrypoint } from './schemes.js';

const skillDir = '/tmp';

describe('builtin: entrypoints', () => {
  it('resolve for each builtin name, and running one outside the agent says where it runs', async () => {
    expect([...BUILTIN_ENTRYPOINTS]).toEqual([
      'cancel_task',
      'forget',
      'list_tasks',
      'recall',
      'remember',
      'schedule_task',
    ]);
    for (const name of BUILTIN_ENTRYPOINTS) {
      expect(checkEntrypoint(`builtin:${name}`, { skillDir })).toEqual([]);
      const entrypoint = resolveEntrypoint(`builtin:${name}`, { skillDir });
      expect(entrypoint).toMatchObject({ scheme: 'builtin', raw: false, placeholders: [] });
      await expect(entrypoint.run({ content: 'x' })).rejects.toMatchObject({
        code: 'builtin-only',
        message: expect.stringContaining(`builtin:${name} is provided by the agent itself`),
      });
    }
  });

  it('refuse an unknown name at the target, listing the builtin tools', () => {
    expect(checkEntrypoint('builtin:remembr', { skillDir })).toEqual([
      {
        code: 'unknown-builtin',
        message:
          "builtin:remembr: there is no builtin tool 'remembr' (builtin tools: cancel_task, forget, list_tasks, recall, remember, schedule_task)",
        offset: 8,
      },
    ]);
    expect(checkEntrypoint('builtin:remember {x}', { skillDir })[0]?.code).toBe('unknown-builtin');
  });
});
