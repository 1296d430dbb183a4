import { ERROR_STATUS } from './errors.js';
import { skillsOpenApi } from './skills.js';

// The API described as OpenAPI 3.1, served at `GET /v1/openapi.json`. Written by hand next to the routes (app.ts);
// `test/openapi.test.ts` checks that every route is described and every described route exists.

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = (description: string) => ({ description, content: json(ref('Error')) });
const errors = (...codes: Array<keyof typeof ERROR_STATUS>) =>
  Object.fromEntries(
    [...new Set(codes.map((code) => ERROR_STATUS[code]))].map((status) => [
      String(status),
      error(
        codes
          .filter((c) => ERROR_STATUS[c] === status)
          .map((c) => `\`${c}\``)
          .join(', '),
      ),
    ]),
  );
const common = ['unauthorized', 'rate-limited', 'unavailable', 'internal'] as const;
const limits = ['concurrent-turns-limit', 'turns-per-minute-limit'] as const;
const sessionId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}_[1-9]\\d{0,8}$' },
  description: 'Session id (`YYYY-MM-DD_N`).',
};
const eventStream = {
  description:
    "A `text/event-stream` of the turn's events, each `event: <type>` with `data: <JSON>` — the same objects `birdie run --json` prints, one per line — and an `id:` once recorded (resume with `GET /v1/sessions/{id}/events` and `Last-Event-ID`). It starts with `session`, ends with `result`, or with `approval-request` when the turn waits for a decision (answer it with `POST /v1/sessions/{id}/approvals`, on any worker).",
  content: { 'text/event-stream': { schema: ref('Event') } },
};

export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'birdie',
      version,
      description:
        'The birdie agent over HTTP. Every endpoint but `/v1/health`, `/v1/ready` and `/v1/openapi.json` needs `Authorization: Bearer TOKEN` (`birdie tokens create --user NAME`); a token acts as its user, who sees only their own sessions and runs; an admin token (`--admin`) may also list and revoke tokens and read the runs of any user. Errors are `{ "error": { "code", "message" } }`.',
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
              },
            },
          },
        },
        Skill: skillsOpenApi.schema,
        Session: {
          type: 'object',
          required: ['id', 'createdAt', 'updatedAt', 'turns', 'inputTokens', 'outputTokens'],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            agent: { type: 'string', description: 'The agent the session was created with.' },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
            turns: { type: 'integer' },
            inputTokens: { type: 'integer' },
            outputTokens: { type: 'integer' },
          },
        },
        Message: {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            role: { type: 'string', enum: ['human', 'ai', 'tool', 'system'] },
            content: { type: 'string' },
            id: { type: 'string' },
            tool_calls: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, name: { type: 'string' }, args: { type: 'object' } },
              },
            },
            tool_call_id: { type: 'string' },
            name: { type: 'string' },
            status: { type: 'string' },
          },
        },
        ApprovalRequest: {
          type: 'object',
          required: ['id', 'digest', 'tool', 'args', 'description', 'reason'],
          properties: {
            id: { type: 'string', description: 'The tool call id; decisions are keyed by it.' },
            digest: { type: 'string' },
            tool: { type: 'string' },
            skill: { type: 'string' },
            args: { type: 'object' },
            parameters: {
              type: 'object',
              description:
                "The tool's JSON Schema: check edited arguments against it before an edit decision.",
            },
            description: { type: 'string' },
            reason: {
              type: 'string',
              enum: ['raw-command', 'approval-required', 'mode-always', 'file-change'],
            },
            preview: {
              type: 'object',
              description:
                'For tools that change files: `{ changes: [{ kind: "file", path, before?, after?, note? } | { kind: "folder", path, note? }] }` (`before: null` for a new file), or `{ error }` when the preview failed. Computed when the question was asked.',
            },
          },
        },
        Decision: {
          oneOf: [
            {
              type: 'object',
              required: ['type'],
              properties: {
                type: { const: 'approve' },
                scope: {
                  enum: ['once', 'session'],
                  description:
                    '`session`: later calls of this tool in this session run without asking while its skill file stays the same.',
                },
              },
            },
            {
              type: 'object',
              required: ['type'],
              properties: { type: { const: 'reject' }, message: { type: 'string' } },
            },
            {
              type: 'object',
              required: ['type', 'args'],
              properties: {
                type: { const: 'edit' },
                args: {
                  type: 'object',
                  description:
                    "Checked against the request's `parameters` (the tool's JSON Schema) before anything resumes: `invalid-arguments` (400) when they do not fit.",
                },
              },
            },
          ],
        },
        Token: {
          type: 'object',
          required: ['id', 'userId', 'role', 'createdAt'],
          properties: {
            id: { type: 'string', description: 'Public id, for `DELETE /v1/tokens/{id}`.' },
            userId: { type: 'string' },
            name: { type: 'string' },
            role: { type: 'string', enum: ['user', 'admin'] },
            createdAt: { type: 'string', format: 'date-time' },
            lastUsedAt: { type: 'string', format: 'date-time' },
          },
        },
        Run: {
          type: 'object',
          required: ['id', 'sessionId', 'status', 'startedAt', 'inputTokens', 'outputTokens', 'toolCalls'],
          properties: {
            id: { type: 'integer' },
            sessionId: { type: 'string' },
            model: { type: 'string' },
            status: { type: 'string', enum: ['running', 'ok', 'error', 'interrupted', 'rejected'] },
            startedAt: { type: 'string', format: 'date-time' },
            endedAt: { type: 'string', format: 'date-time' },
            durationMs: { type: 'integer' },
            inputTokens: { type: 'integer' },
            outputTokens: { type: 'integer' },
            error: { type: 'string' },
            toolCalls: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'integer' },
                  callId: { type: 'string' },
                  name: { type: 'string' },
                  skill: { type: 'string' },
                  status: { type: 'string', enum: ['started', 'ok', 'error'] },
                  resultUnknown: {
                    type: 'boolean',
                    description:
                      'Started in a run that ended without its result: it may have had its effect.',
                  },
                  startedAt: { type: 'string', format: 'date-time' },
                  endedAt: { type: 'string', format: 'date-time' },
                  durationMs: { type: 'integer' },
                  truncated: { type: 'boolean' },
                  error: { type: 'string' },
                },
              },
            },
          },
        },
        Event: {
          description: 'One event of a turn (`data:` of the stream); `type` says which.',
          oneOf: [
            event('session', {
              id: { type: 'string' },
              user: { type: 'string' },
              provider: { type: 'string' },
            }),
            event('token', { text: { type: 'string' } }),
            event('message', { message: ref('Message') }),
            event('tool-start', {
              id: { type: 'string' },
              name: { type: 'string' },
              skill: { type: 'string' },
              args: { type: 'object' },
            }),
            event('tool-output', {
              id: { type: 'string' },
              name: { type: 'string' },
              stream: { type: 'string', enum: ['stdout', 'stderr'] },
              text: {
                type: 'string',
                description:
                  'Output of the running call since the previous tool-output of its stream (the newest ≤ 4,096 characters; at most one per 100 ms).',
              },
            }),
            event('tool-end', {
              id: { type: 'string' },
              name: { type: 'string' },
              ok: { type: 'boolean' },
              output: { type: 'string' },
              truncated: { type: 'boolean' },
              durationMs: { type: 'integer' },
            }),
            event('usage', {
              inputTokens: { type: 'integer' },
              outputTokens: { type: 'integer' },
              model: { type: 'string', description: 'The model that made the call (vendor:model).' },
              context: {
                type: 'object',
                properties: { tokens: { type: 'integer' }, window: { type: 'integer' } },
              },
            }),
            event('compaction', {
              trigger: { type: 'string' },
              messages: { type: 'integer' },
              tokensBefore: { type: 'integer' },
              tokensAfter: { type: 'integer' },
              window: { type: 'integer' },
              model: { type: 'string' },
              summary: { type: 'string' },
            }),
            event('error', {
              error: {
                type: 'object',
                properties: {
                  code: { type: 'string' },
                  message: { type: 'string' },
                  hint: { type: 'string' },
                },
              },
            }),
            event('done', {
              status: { type: 'string', enum: ['ok', 'interrupted', 'error', 'cancelled', 'rejected'] },
            }),
            event('approval-request', { requests: { type: 'array', items: ref('ApprovalRequest') } }),
            event('result', {
              status: { type: 'string', enum: ['ok', 'interrupted', 'error', 'cancelled', 'rejected'] },
              session: { type: 'string' },
              inputTokens: { type: 'integer' },
              outputTokens: { type: 'integer' },
            }),
          ],
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/health': {
        get: {
          summary: 'Whether this worker is up (no token needed).',
          security: [],
          responses: {
            '200': {
              description: 'Up.',
              content: json({
                type: 'object',
                properties: {
                  status: { const: 'ok' },
                  version: { type: 'string' },
                  store: { type: 'string', enum: ['sqlite', 'postgres'] },
                },
              }),
            },
          },
        },
      },
      '/v1/ready': {
        get: {
          summary:
            'Whether this worker can serve requests (no token needed): its store is reachable, its schema current and writable, and the worker is not shutting down. A readiness probe; `/v1/health` is the liveness one.',
          security: [],
          responses: {
            '200': {
              description: 'Ready.',
              content: json({
                type: 'object',
                required: ['status', 'version', 'store'],
                properties: {
                  status: { const: 'ready' },
                  version: { type: 'string' },
                  store: { type: 'string', enum: ['sqlite', 'postgres'] },
                },
              }),
            },
            '503': {
              description: 'Not ready (`Retry-After`), with the reason.',
              content: json({
                type: 'object',
                required: ['status', 'version', 'store', 'reason'],
                properties: {
                  status: { const: 'not-ready' },
                  version: { type: 'string' },
                  store: { type: 'string', enum: ['sqlite', 'postgres'] },
                  reason: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: {
                      code: {
                        type: 'string',
                        description:
                          "The store's error code (`unavailable`, `migration-failed`, `read-only`, `disk-full`, `malformed`, `closed`, …) or `shutting-down`.",
                      },
                      message: { type: 'string' },
                    },
                  },
                },
              }),
            },
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          summary: 'This document (no token needed).',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) } },
        },
      },
      '/v1/sessions': {
        post: {
          summary: 'Start a session.',
          requestBody: {
            required: false,
            content: json({
              type: 'object',
              properties: {
                agent: { type: 'string', description: 'The agent that answers the first turn.' },
                enable: {
                  type: 'array',
                  items: { type: 'string' },
                  description:
                    'Skills enabled for the session, among those `GET /v1/skills` lists (any other: 403 `skill-not-allowed`).',
                },
                title: { type: 'string' },
              },
            }),
          },
          responses: {
            '201': { description: 'The new session.', content: json(ref('Session')) },
            ...errors(
              'invalid-request',
              'skill-not-allowed',
              'agent-not-allowed',
              'payload-too-large',
              'unsupported-media-type',
              ...common,
            ),
          },
        },
        get: {
          summary: "The caller's sessions, newest first.",
          responses: {
            '200': {
              description: 'Sessions.',
              content: json({
                type: 'object',
                properties: { sessions: { type: 'array', items: ref('Session') } },
              }),
            },
            ...errors(...common),
          },
        },
      },
      '/v1/sessions/{id}': {
        parameters: [sessionId],
        get: {
          summary: 'One session: its messages, grants and pending approvals.',
          responses: {
            '200': {
              description: 'The session.',
              content: json({
                allOf: [
                  ref('Session'),
                  {
                    type: 'object',
                    properties: {
                      messages: { type: 'array', items: ref('Message') },
                      grants: {
                        type: 'object',
                        properties: {
                          enabled: { type: 'array', items: { type: 'string' } },
                          disabled: { type: 'array', items: { type: 'string' } },
                        },
                      },
                      pendingApprovals: { type: 'array', items: ref('ApprovalRequest') },
                    },
                  },
                ],
              }),
            },
            ...errors('not-found', ...common),
          },
        },
        delete: {
          summary: 'Delete the session with its history, grants, runs and files.',
          responses: {
            '204': { description: 'Deleted.' },
            ...errors('not-found', 'session-busy', ...common),
          },
        },
      },
      '/v1/sessions/{id}/turns': {
        parameters: [sessionId],
        post: {
          summary: 'Run one turn; its events stream back.',
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
              description:
                "Submits the turn once: the same key again (same user and session, within 24 h of the turn's end) answers with that turn's stream — its recorded events, then the rest while it runs — instead of running another. The same key with another body is 422 `idempotency-key-reused`.",
            },
          ],
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              required: ['prompt'],
              properties: { prompt: { type: 'string', minLength: 1, maxLength: 100000 } },
            }),
          },
          responses: {
            '200': eventStream,
            ...errors(
              'invalid-request',
              'not-found',
              'session-busy',
              'payload-too-large',
              'workspace-bytes-exceeded',
              'unsupported-media-type',
              ...limits,
              'idempotency-key-reused',
              ...common,
            ),
          },
        },
      },
      '/v1/sessions/{id}/events': {
        parameters: [sessionId],
        get: {
          summary:
            "Reattach: the session's recorded events after `Last-Event-ID` (without it, its newest turn's from the start), then the rest while a turn runs, on any worker.",
          parameters: [
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              schema: { type: 'string', pattern: '^\\d{1,15}$' },
              description:
                'The `id:` of the last event the client has (what an EventSource sends when it reconnects).',
            },
          ],
          responses: {
            '200': {
              description:
                'A `text/event-stream` of recorded events, each with its `id:`; it ends when no turn of the session is running. Tokens are recorded coalesced (one event per message part).',
              content: { 'text/event-stream': { schema: ref('Event') } },
            },
            ...errors('invalid-request', 'not-found', ...common),
          },
        },
      },
      '/v1/sessions/{id}/approvals': {
        parameters: [sessionId],
        post: {
          summary:
            'Answer the approvals a turn stopped for, on any worker; the rest of the turn streams back.',
          requestBody: {
            required: true,
            content: json({
              type: 'object',
              required: ['decisions'],
              properties: {
                decisions: {
                  type: 'object',
                  description: 'One decision per pending call id.',
                  additionalProperties: ref('Decision'),
                },
              },
            }),
          },
          responses: {
            '200': eventStream,
            ...errors(
              'invalid-request',
              'invalid-arguments',
              'not-found',
              'session-busy',
              'nothing-pending',
              'payload-too-large',
              'workspace-bytes-exceeded',
              'unsupported-media-type',
              ...limits,
              ...common,
            ),
          },
        },
      },
      '/v1/sessions/{id}/cancel': {
        parameters: [sessionId],
        post: {
          summary: "Stop the session's running turn, on whichever worker runs it.",
          responses: {
            '202': {
              description: '`cancelled`: whether a turn was running (it ends with status `cancelled`).',
              content: json({ type: 'object', properties: { cancelled: { type: 'boolean' } } }),
            },
            ...errors('not-found', ...common),
          },
        },
      },
      '/v1/skills': {
        get: {
          summary: skillsOpenApi.summary,
          responses: {
            '200': {
              description: 'Skills.',
              content: json({
                type: 'object',
                properties: { skills: { type: 'array', items: ref('Skill') } },
              }),
            },
            ...errors(...common),
          },
        },
      },
      '/v1/runs': {
        get: {
          summary:
            "The caller's runs, newest first, each with its tool calls; with `user`, that user's (an admin token's only).",
          parameters: [
            {
              name: 'user',
              in: 'query',
              schema: { type: 'string' },
              description:
                "Whose runs: the caller's own by default; another user's needs an admin token (else 403 `forbidden`).",
            },
            { name: 'session', in: 'query', schema: { type: 'string' }, description: 'Only this session.' },
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
            },
          ],
          responses: {
            '200': {
              description: 'Runs.',
              content: json({ type: 'object', properties: { runs: { type: 'array', items: ref('Run') } } }),
            },
            ...errors('invalid-request', 'forbidden', 'not-found', ...common),
          },
        },
      },
      '/v1/tokens': {
        get: {
          summary: 'Every API token (never the token or its hash), oldest first. Admin tokens only.',
          parameters: [
            {
              name: 'user',
              in: 'query',
              schema: { type: 'string' },
              description: "Only this user's tokens.",
            },
          ],
          responses: {
            '200': {
              description: 'Tokens.',
              content: json({
                type: 'object',
                required: ['tokens'],
                properties: { tokens: { type: 'array', items: ref('Token') } },
              }),
            },
            ...errors('invalid-request', 'forbidden', ...common),
          },
        },
      },
      '/v1/tokens/{id}': {
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^tok_[0-9a-f]{16}$' },
            description: 'Token id (`tok_` and 16 hex digits).',
          },
        ],
        delete: {
          summary:
            'Revoke a token: requests with it fail from the next one, on every worker. Admin tokens only.',
          responses: {
            '204': { description: 'Revoked.' },
            ...errors('forbidden', 'not-found', ...common),
          },
        },
      },
    },
  };
}

function event(type: string, properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['type'],
    properties: { type: { const: type }, agent: { type: 'array', items: { type: 'string' } }, ...properties },
  };
}
