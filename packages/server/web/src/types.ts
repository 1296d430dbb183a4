// The API's shapes the app reads (see GET /v1/openapi.json); only the fields it uses.

export interface Session {
  id: string;
  title?: string;
  agent?: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

export interface Message {
  role: 'human' | 'ai' | 'tool' | 'system';
  content: string;
  id?: string;
  cancelled?: boolean;
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  name?: string;
  status?: string;
  subagentOf?: string;
}

export interface ApprovalRequest {
  id: string;
  digest: string;
  tool: string;
  skill?: string;
  args: Record<string, unknown>;
  parameters?: Record<string, unknown>;
  description: string;
  reason: string;
  raw?: true;
  agent?: string[];
  preview?: {
    changes?: Array<{
      kind: 'file' | 'folder';
      path: string;
      before?: string | null;
      after?: string;
      note?: string;
    }>;
    error?: string;
  };
}

export interface SessionDetail extends Session {
  messages: Message[];
  grants: { enabled: string[]; disabled: string[] };
  pendingApprovals: ApprovalRequest[];
}

export type ApprovalDecision =
  | { type: 'approve'; scope?: 'once' | 'session' }
  | { type: 'reject'; message?: string }
  | { type: 'edit'; args: Record<string, unknown> };

export interface Skill {
  name: string;
  description: string;
  enabledByDefault: boolean;
  mcpServer: boolean;
  tools: Array<{ name: string; description: string; raw: boolean; approval: 'always' | 'never' }>;
}

export interface ToolCallRow {
  id: number;
  callId?: string;
  name: string;
  skill?: string;
  status: 'started' | 'ok' | 'error';
  durationMs?: number;
  error?: string;
}

export interface Run {
  id: number;
  parentRunId?: number;
  sessionId: string;
  model?: string;
  agent?: { name: string; digest: string };
  trigger?: string;
  status: string;
  startedAt: string;
  endedAt?: string;
  durationMs?: number;
  inputTokens: number;
  outputTokens: number;
  usage: Array<{ model: string; inputTokens: number; outputTokens: number }>;
  answer?: string;
  error?: string;
  toolCalls: ToolCallRow[];
}

type Agentful = { agent?: string[] };
export type TurnEvent = Agentful &
  (
    | {
        type: 'session';
        id: string;
        user: string;
        provider: string;
        /** The prompt that started the turn, in its recorded events (older records and continuations: none). */
        prompt?: string;
      }
    | { type: 'token'; text: string }
    | { type: 'message'; message: Message }
    | { type: 'tool-start'; id: string; name: string; skill?: string; args: Record<string, unknown> }
    | { type: 'tool-output'; id: string; name: string; stream: 'stdout' | 'stderr'; text: string }
    | {
        type: 'tool-end';
        id: string;
        name: string;
        ok: boolean;
        output: string;
        truncated: boolean;
        durationMs: number;
      }
    | { type: 'tool-approved'; id: string; name: string }
    | {
        type: 'usage';
        inputTokens: number;
        outputTokens: number;
        model?: string;
        context?: { tokens: number; window: number };
      }
    | { type: 'error'; error: { code: string; message: string; hint?: string } }
    | { type: 'done'; status: string }
    | { type: 'approval-request'; requests: ApprovalRequest[] }
    | { type: 'result'; status: string; session: string; inputTokens: number; outputTokens: number }
    | { type: 'compaction' | 'tool-rule' | 'tool-selection' }
  );
