import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('are exactly these', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'ACP_MODES',
      'PLAN_TOOLS',
      'planFromTodoOutput',
      'serveAcp',
    ]);
  });
});
