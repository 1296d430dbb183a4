// The API's operations, in one registry. How to add an endpoint (the pattern every route follows):
//   1. In a small module here, `defineRoute(createRoute({ method, path: '/v1/x/{id}', operationId, summary,
//      request: { params, query, body: { required, content: jsonContent(zodSchema) } }, responses: { 200: …,
//      ...errorResponses(...codes) } }), (deps) => async (c) => { … c.req.valid('json') … })`.
//      Shared shapes go in `schemas.ts` (`.openapi('Name')` makes a component); handlers' logic that is more than
//      wiring goes in its own module outside `routes/`.
//   2. Add it to `ROUTES` below. That mounts it (with request validation: a failure is `400 invalid-request` in the
//      API's error shape, see validation.ts) and puts it in the OpenAPI document (`GET /v1/openapi.json`).
//   3. `public: true` (third argument of defineRoute) serves it without a token; anything else passes the auth and
//      rate-limit middleware first (paths under /v1/, and /metrics). Throw `ApiError` for refusals; JSON bodies are read once, strictly (json-body.ts).
import type { ApiRoute } from './define.js';
import { health, openApi, ready } from './health.js';
import { answerMcpRequest } from './mcp-requests.js';
import { getMetrics } from './metrics.js';
import { getRun, listRuns } from './runs.js';
import { answerApprovals, cancelTurn, followEvents, startTurn } from './session-turns.js';
import { createSession, deleteSession, getSession, listSessions, renameSession } from './sessions.js';
import { listAgents, listSkills, setSessionSkills } from './skills.js';
import { cancelTask, listTasks } from './tasks.js';
import { listTokensRoute, revokeTokenRoute } from './tokens.js';

export const ROUTES: readonly ApiRoute[] = [
  health,
  openApi,
  ready,
  createSession,
  listSessions,
  getSession,
  renameSession,
  deleteSession,
  startTurn,
  followEvents,
  answerApprovals,
  answerMcpRequest,
  cancelTurn,
  listSkills,
  setSessionSkills,
  listAgents,
  listRuns,
  getRun,
  listTasks,
  cancelTask,
  listTokensRoute,
  revokeTokenRoute,
  getMetrics,
];
