import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('pins the runtime exports of @birdie/graph', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'AgentError',
      'AgentState',
      'FAILED_TOOL_RESULT',
      'FINISHED_TOOL_RESULT',
      'MODEL_CHANNEL',
      'McpManager',
      'NOT_STARTED_TOOL_RESULT',
      'STARTED_TOOL_RESULT',
      'TOOL_LIMITS',
      'UNKNOWN_TOOL_RESULT',
      'buildSystemPrompt',
      'checkToolArgs',
      'childThreadId',
      'contextWindow',
      'createAgent',
      'createSkillTool',
      'describeToolError',
      'findMemoryFiles',
      'isAgentError',
      'repairDanglingToolCalls',
    ]);
  });

  it('pins the runtime exports of @birdie/graph/tools (no LangGraph behind them)', async () => {
    expect(Object.keys(await import('./tools.js')).sort()).toEqual([
      'TOOL_LIMITS',
      'checkToolArgs',
      'createSkillTool',
      'describeToolError',
    ]);
  });
});
