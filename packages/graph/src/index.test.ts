import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('pins the runtime exports of @birdie/graph', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'AgentError',
      'AgentState',
      'INTERRUPTED_TOOL_RESULT',
      'McpManager',
      'buildSystemPrompt',
      'contextWindow',
      'createAgent',
      'isAgentError',
      'repairDanglingToolCalls',
    ]);
  });
});
