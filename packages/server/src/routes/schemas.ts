import { z } from '@hono/zod-openapi';
import { ERROR_STATUS } from '../errors.js';

// The API's shapes, once: requests are validated with them and the OpenAPI document is generated from them. A name
// given with `.openapi('Name')` makes the schema a component (`#/components/schemas/Name`).

const dateTime = () => z.iso.datetime();

/**
 * A query filter's text: no control characters. A NUL is a value PostgreSQL cannot even compare, and none belongs in a
 * name or an id, so the request is refused here rather than by the store.
 */
export const filterText = () =>
  z.string().regex(/^[^\p{Cc}]*$/u, { error: 'must not contain control characters' });

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]),
      message: z.string(),
    }),
  })
  .openapi('Error');

export const SessionSchema = z
  .object({
    id: z.string(),
    title: z.string().optional(),
    agent: z.string().optional().openapi({ description: 'The agent the session was created with.' }),
    createdAt: dateTime(),
    updatedAt: dateTime(),
    turns: z.int(),
    inputTokens: z.int(),
    outputTokens: z.int(),
  })
  .openapi('Session');

export const MessageSchema = z
  .object({
    role: z.enum(['human', 'ai', 'tool', 'system']),
    content: z.string(),
    id: z.string().optional(),
    cancelled: z.boolean().optional().openapi({ description: 'An answer cut short by a cancel.' }),
    tool_calls: z
      .array(
        z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()) }),
      )
      .optional(),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
    status: z.string().optional(),
  })
  .openapi('Message');

const RuleSchema = z
  .object({
    pattern: z.string().openapi({ description: 'The rule as written, e.g. `run_bash(git status)`.' }),
    effect: z.enum(['allow', 'ask', 'deny']),
    source: z.object({
      kind: z.enum(['user', 'project', 'agent', 'skill', 'operator', 'session']),
      name: z.string().optional().openapi({ description: 'The file or skill the rule comes from.' }),
    }),
  })
  .openapi('ApprovalRule');

export const ApprovalRequestSchema = z
  .object({
    id: z.string().openapi({ description: 'The tool call id; decisions are keyed by it.' }),
    digest: z.string(),
    tool: z.string(),
    skill: z.string().optional(),
    args: z.record(z.string(), z.unknown()),
    parameters: z.record(z.string(), z.unknown()).optional().openapi({
      description: "The tool's JSON Schema: check edited arguments against it before an edit decision.",
    }),
    description: z.string(),
    reason: z.enum([
      'raw-command',
      'approval-required',
      'mode-always',
      'model-agent',
      'file-change',
      'runs-code',
      'rule',
    ]),
    raw: z
      .literal(true)
      .optional()
      .openapi({ description: 'The tool runs a raw shell command (`args.command`).' }),
    rule: RuleSchema.optional().openapi({ description: "`reason: 'rule'`: the ask rule that asks." }),
    ruleMiss: z.string().optional().openapi({
      description: 'Why the allow rules that name this tool did not let the call run without asking.',
    }),
    agent: z.array(z.string()).optional(),
    addedBy: z.literal('find_tools').optional().openapi({
      description:
        'The model added this tool itself with `find_tools` (it was not among the tools it was given at first).',
    }),
    preview: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'For tools that change files: `{ changes: [{ kind: "file", path, before?, after?, note? } | { kind: "folder", path, note? }] }` (`before: null` for a new file), or `{ error }` when the preview failed. Computed when the question was asked.',
    }),
  })
  .openapi('ApprovalRequest');

export const DecisionSchema = z
  .discriminatedUnion('type', [
    // Strict, as every body is: a misspelt `mesage` or a `pattern` is named in the 400, not dropped.
    z.strictObject({
      type: z.literal('approve'),
      scope: z.enum(['once', 'session']).optional().openapi({
        description:
          "`session`: later calls of this tool in this session run without asking while its skill file stays the same. Not for a raw shell command (`raw: true`) or a call a rule asks about (`reason: 'rule'`), which ask at every call (400). A request cannot add an approval rule (a `pattern`): only the operator's `permissions` allow by rule in API sessions.",
      }),
    }),
    z.strictObject({ type: z.literal('reject'), message: z.string().optional() }),
    z.strictObject({
      type: z.literal('edit'),
      args: z.record(z.string(), z.unknown()).openapi({
        description:
          "Checked against the request's `parameters` (the tool's JSON Schema) before anything resumes: `invalid-arguments` (400) when they do not fit.",
      }),
    }),
  ])
  .openapi('Decision');

export const ToolCallSchema = z
  .object({
    id: z.int(),
    callId: z.string().optional(),
    name: z.string(),
    skill: z.string().optional(),
    status: z.enum(['started', 'ok', 'error']),
    resultUnknown: z.boolean().openapi({
      description: 'Started in a run that ended without its result: it may have had its effect.',
    }),
    startedAt: dateTime(),
    endedAt: dateTime().optional(),
    durationMs: z.int().optional(),
    truncated: z.boolean(),
    error: z.string().optional(),
  })
  .openapi('ToolCall');

export const RunSchema = z
  .object({
    id: z.int(),
    parentRunId: z.int().optional().openapi({
      description:
        'The run this one belongs to: the turn that delegated to a subagent, the run that scheduled a task.',
    }),
    userId: z.string(),
    sessionId: z.string(),
    threadId: z.string().openapi({ description: "The LangGraph thread holding the run's messages." }),
    startCheckpointId: z.string().optional(),
    endCheckpointId: z.string().optional(),
    model: z.string().optional(),
    agent: z
      .object({ name: z.string(), digest: z.string() })
      .optional()
      .openapi({ description: 'The agent that answered first, and the SHA-256 of its file.' }),
    trigger: z
      .string()
      .optional()
      .openapi({ description: 'What started it when not a person (`every 30s`, `task 12`).' }),
    status: z.enum(['running', 'ok', 'error', 'interrupted', 'rejected', 'cancelled', 'died']),
    startedAt: dateTime(),
    endedAt: dateTime().optional(),
    durationMs: z.int().optional(),
    inputTokens: z.int(),
    outputTokens: z.int(),
    usage: z.array(z.object({ model: z.string(), inputTokens: z.int(), outputTokens: z.int() })),
    answer: z.string().optional().openapi({ description: "The text of the run's last model message." }),
    error: z.string().optional(),
    host: z.string().optional().openapi({ description: 'The machine that ran it (to an admin token only).' }),
    pid: z.int().optional().openapi({ description: 'The process that ran it (to an admin token only).' }),
    notices: z
      .array(
        z.object({
          at: dateTime(),
          server: z.string().openapi({ description: 'The MCP server (its skill’s name).' }),
          level: z.string().openapi({ description: 'An MCP logging level; `info` for change news.' }),
          kind: z.string().openapi({
            description:
              '`log`, or what changed: `tools-changed`, `resources-changed`, `prompts-changed`, `resource-updated`.',
          }),
          text: z.string(),
        }),
      )
      .openapi({ description: 'What MCP servers said during the run (the newest 200).' }),
    toolCalls: z.array(ToolCallSchema),
  })
  .openapi('Run');

const TURN_STATUS = z.enum(['ok', 'interrupted', 'error', 'cancelled', 'rejected']);
const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), agent: z.array(z.string()).optional(), ...shape });

export const EventSchema = z
  .union([
    event('session', {
      id: z.string(),
      user: z.string(),
      provider: z.string(),
      prompt: z.string().optional().openapi({
        description:
          'The prompt that started the turn, in its recorded events (`GET …/events`, a resend with its `Idempotency-Key`): a client that replays the turn tells by it which prompt of the history is this turn’s. Not sent to the client that posted the turn; absent for an approval’s continuation and for turns recorded before it was added.',
      }),
    }),
    event('token', { text: z.string() }),
    event('message', { message: MessageSchema }),
    event('tool-start', {
      id: z.string(),
      name: z.string(),
      skill: z.string().optional(),
      args: z.record(z.string(), z.unknown()),
    }),
    event('tool-output', {
      id: z.string(),
      name: z.string(),
      stream: z.enum(['stdout', 'stderr']),
      text: z.string().openapi({
        description:
          'Output of the running call since the previous tool-output of its stream (the newest ≤ 4,096 characters; at most one per 100 ms).',
      }),
    }),
    event('tool-end', {
      id: z.string(),
      name: z.string(),
      ok: z.boolean(),
      outcome: z.enum(['rejected', 'refused', 'cancelled']).optional(),
      stopNote: z.string().optional(),
      output: z.string(),
      truncated: z.boolean(),
      durationMs: z.int(),
    }),
    event('tool-approved', {
      id: z.string(),
      name: z.string(),
      skill: z.string().optional(),
      scope: z.literal('session'),
    }),
    event('tool-rule', {
      id: z.string(),
      name: z.string(),
      effect: z.enum(['allow', 'ask', 'deny']),
      pattern: z.string(),
      source: z.object({ kind: z.string(), name: z.string().optional() }),
    }),
    event('tool-selection', {
      bound: z.array(z.string()).openapi({
        description: 'The tools this model call is given (over the tool budget), `find_tools` included.',
      }),
      found: z
        .array(z.string())
        .openapi({ description: 'Those of them `find_tools` returned in this session.' }),
      held: z
        .int()
        .openapi({ description: 'How many allowed tools are held back (what `find_tools` searches).' }),
    }),
    event('usage', {
      inputTokens: z.int(),
      outputTokens: z.int(),
      model: z.string().optional().openapi({ description: 'The model that made the call (vendor:model).' }),
      context: z.object({ tokens: z.int(), window: z.int() }).optional(),
    }),
    event('compaction', {
      trigger: z.string(),
      messages: z.int(),
      tokensBefore: z.int(),
      tokensAfter: z.int(),
      window: z.int(),
      model: z.string(),
      summary: z.string(),
    }),
    event('error', {
      error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }),
    }),
    event('done', { status: TURN_STATUS }),
    event('approval-request', { requests: z.array(ApprovalRequestSchema) }),
    event('mcp-request', {
      id: z
        .string()
        .openapi({ description: 'Answer it with `POST /v1/sessions/{id}/mcp-requests/{requestId}`.' }),
      kind: z.enum(['sampling', 'sampling-answer', 'elicitation']),
      server: z.string(),
      request: z.record(z.string(), z.unknown()).openapi({
        description: "The MCP server's `sampling/createMessage` or `elicitation/create` params.",
      }),
      answer: z.string().optional().openapi({
        description: "`sampling-answer`: the model's answer, sent to the server only if approved.",
      }),
    }),
    event('mcp-notice', {
      notice: z.record(z.string(), z.unknown()).openapi({
        description:
          "An MCP server's log message (`kind: log`, with its `level`) or change news, during a call.",
      }),
    }),
    event('result', {
      status: TURN_STATUS,
      session: z.string(),
      inputTokens: z.int(),
      outputTokens: z.int(),
    }),
  ])
  .openapi('Event', { description: 'One event of a turn (`data:` of the stream); `type` says which.' });

export const SkillSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    enabledByDefault: z
      .boolean()
      .openapi({ description: 'On in every new session without being asked for.' }),
    mcpServer: z.boolean().openapi({ description: 'Its tools come from an MCP server, known once it runs.' }),
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        raw: z.boolean().openapi({
          description: "Runs a raw command: it asks on every call, whatever the server's approval mode.",
        }),
        approval: z.enum(['always', 'never']).openapi({
          description:
            "`always`: each call waits for the session user's decision; `never`: it runs without asking.",
        }),
      }),
    ),
  })
  .openapi('Skill');

export const TokenSchema = z
  .object({
    id: z.string().openapi({ description: 'Public id, for `DELETE /v1/tokens/{id}`.' }),
    userId: z.string(),
    name: z.string().optional(),
    role: z.enum(['user', 'admin']),
    createdAt: dateTime(),
    lastUsedAt: dateTime().optional(),
  })
  .openapi('Token');

export const TaskSchema = z
  .object({
    id: z.int(),
    agent: z
      .string()
      .optional()
      .openapi({ description: 'The agent that runs it; absent: the default agent.' }),
    prompt: z.string(),
    schedule: z
      .string()
      .optional()
      .openapi({ description: 'A cron expression (with `timezone`, when given).' }),
    timezone: z.string().optional(),
    every: z.int().optional().openapi({ description: 'Seconds between runs.' }),
    at: dateTime().optional().openapi({ description: 'The one time it runs.' }),
    status: z.enum(['active', 'done', 'failed', 'cancelled']).openapi({
      description: '`done`: a one-time task ran; `failed`: its run did not end `ok` (it is not retried).',
    }),
    createdAt: dateTime(),
    createdByRun: z.int().optional().openapi({ description: 'The run whose `schedule_task` call made it.' }),
    endedAt: dateTime().optional(),
    error: z
      .string()
      .optional()
      .openapi({ description: 'Why its run failed (status `failed`): the run status, error and run id.' }),
  })
  .openapi('Task', {
    description:
      'A task the user (or the model, with their approval) scheduled; `birdie start` runs it as the user.',
  });

export const AgentSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    model: z.string().optional().openapi({ description: 'The model (or tier) its file names.' }),
    skills: z.array(z.string()).optional().openapi({ description: 'Skills its file enables.' }),
    subagents: z.array(z.string()).optional().openapi({ description: 'Agents it may delegate to.' }),
    handoffs: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Agents it may hand the conversation to.' }),
  })
  .openapi('Agent');

export const GrantsSchema = z
  .object({
    enabled: z.array(z.string()).openapi({ description: 'Skills switched on in the session.' }),
    disabled: z.array(z.string()).openapi({ description: 'Skills switched off in the session.' }),
  })
  .openapi('Grants');
