import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('pins the runtime exports of @birdie/graph', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'AgentError',
      'AgentState',
      'ApprovalRuleError',
      'CHARS_ESTIMATOR',
      'CLAUDE_CODE_TOOLS',
      'DEFAULT_CONTEXT_WINDOW',
      'DEFAULT_TOOL_BUDGET',
      'FAILED_TOOL_RESULT',
      'FIND_TOOLS',
      'FINISHED_TOOL_RESULT',
      'MCP_CLIENT_CAPABILITIES',
      'MESSAGE_OVERHEAD_TOKENS',
      'MODEL_CHANNEL',
      'McpManager',
      'McpSamplingRefused',
      'McpToolError',
      'NOT_STARTED_TOOL_RESULT',
      'STARTED_TOOL_RESULT',
      'SUMMARY_HEADER',
      'SWITCH_MODEL',
      'TOKEN_MARGINS',
      'TOOL_LIMITS',
      'UNKNOWN_TOOL_RESULT',
      'buildSystemPrompt',
      'checkToolArgs',
      'childThreadId',
      'compileRules',
      'contextWindow',
      'createAgent',
      'createSkillTool',
      'describeMiss',
      'describeRule',
      'describeToolError',
      'findMemoryFiles',
      'inapplicableRuleReason',
      'isAgentError',
      'isApprovalRuleError',
      'isMcpSamplingRefused',
      'isMcpToolError',
      'mapAllowedTools',
      'matchCommandWords',
      'modelLimits',
      'parseApprovalPattern',
      'repairDanglingToolCalls',
      'suggestCommandPattern',
      'tokenEstimator',
    ]);
  });

  it('pins the runtime exports of @birdie/graph/tools (no LangGraph behind them)', async () => {
    expect(Object.keys(await import('./tools.js')).sort()).toEqual([
      'TOOL_LIMITS',
      'callApproval',
      'checkToolArgs',
      'compileRules',
      'createSkillTool',
      'defaultApproval',
      'describeMiss',
      'describeRule',
      'describeToolError',
      'readReferenceFile',
    ]);
  });
});
