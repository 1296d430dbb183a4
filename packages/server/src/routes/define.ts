import type { ApiToken, Store } from '@birdie/store';
import { type OpenAPIHono, type RouteConfig, type RouteHandler, z } from '@hono/zod-openapi';
import { type ApiErrorCode, ERROR_STATUS } from '../errors.js';
import type { ServerMetrics } from '../metrics.js';
import type { ServeRuntime } from '../runtime.js';
import type { Turns } from '../turns.js';
import type { Workspaces } from '../workspaces.js';
import { ErrorSchema, EventSchema } from './schemas.js';

/** `requestId`: the request's id (`X-Request-Id`, given or made), for logs; `token`: the caller's, once authenticated. */
export type ApiEnv = { Variables: { token: ApiToken; requestId: string } };
export type ApiApp = OpenAPIHono<ApiEnv>;

/** What handlers use; read only when a request comes, so the document can be generated without any of it. */
export interface RouteDeps {
  runtime: ServeRuntime;
  store: Store;
  turns: Turns;
  /** The users' workspaces, when the server has them (a session's own is deleted with it). */
  workspaces?: Workspaces;
  version: string;
  metrics: ServerMetrics;
  /** Whether a token may read what only the operator may (the metrics). */
  isAdminToken(token: ApiToken): boolean;
  /** The OpenAPI document, with `serverUrl` as its server. */
  document(serverUrl: string): Record<string, unknown>;
}

/** One operation: its definition (validation and documentation) and how to mount its handler on an app. */
export interface ApiRoute {
  readonly definition: RouteConfig;
  /** Served without a token (mounted before the auth middleware). */
  readonly public: boolean;
  mount(app: ApiApp, deps: RouteDeps): void;
}

export function defineRoute<R extends RouteConfig>(
  definition: R,
  handler: (deps: RouteDeps) => RouteHandler<R, ApiEnv>,
  options: { public?: boolean } = {},
): ApiRoute {
  return {
    definition,
    public: options.public ?? false,
    mount: (app, deps) => {
      app.openapi(definition, handler(deps) as never);
    },
  };
}

/** Errors every authenticated operation may answer. */
export const COMMON_ERRORS = ['unauthorized', 'rate-limited', 'unavailable', 'internal'] as const;
/** Errors of reading a JSON body, added to every operation that takes one. */
export const BODY_ERRORS = [
  'invalid-request',
  'invalid-encoding',
  'payload-too-large',
  'unsupported-media-type',
] as const;

/** Responses for these error codes, one per status, each naming its codes. */
export function errorResponses(...codes: ApiErrorCode[]) {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `\`${c}\``).join(', '),
        content: { 'application/json': { schema: ErrorSchema } },
      },
    ]),
  ) as Record<
    number,
    { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }
  >;
}

export const jsonContent = <S extends z.ZodType>(schema: S) => ({ 'application/json': { schema } });

/** A session id in the path. Not validated here: a malformed id is 404 like a missing one (never told apart). */
export const SessionParams = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    pattern: '^(?:[A-Za-z0-9][A-Za-z0-9._@-]{0,63}~)?\\d{4}-\\d{2}-\\d{2}_[1-9]\\d{0,8}$',
    description:
      "Session id: `USER~YYYY-MM-DD_N`, numbered among the caller's own sessions of the day (`YYYY-MM-DD_N` for a session made before per-user numbers, or by the CLI).",
  }),
});

export const EVENT_STREAM = {
  description:
    "A `text/event-stream` of the turn's events, each `event: <type>` with `data: <JSON>` — the same objects `birdie run --json` prints, one per line — and an `id:` once recorded (resume with `GET /v1/sessions/{id}/events` and `Last-Event-ID`). It starts with `session`, ends with `result`, or with `approval-request` when the turn waits for a decision (answer it with `POST /v1/sessions/{id}/approvals`, on any worker).",
  content: { 'text/event-stream': { schema: EventSchema } },
};
