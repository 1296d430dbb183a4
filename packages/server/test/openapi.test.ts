import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ERROR_STATUS } from '../src/errors.js';
import * as api from '../src/index.js';
import { ServerMetrics } from '../src/metrics.js';
import { Turns } from '../src/turns.js';
import { FakeRuntime, useServer } from './helpers.js';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
};
type Doc = {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
};

/**
 * Every key of `value` is a property of `schema`, recursively, and every required property is there: the document
 * says exactly what the API sends.
 */
function expectFits(doc: Doc, value: unknown, schema: Schema, where: string): void {
  const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)!]! : schema;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) expectFits(doc, item, resolved.items!, `${where}[${i}]`);
    return;
  }
  if (value === null || typeof value !== 'object' || !resolved.properties) return;
  for (const key of Object.keys(value))
    expect(Object.keys(resolved.properties), `${where}.${key} is not in the document`).toContain(key);
  for (const key of resolved.required ?? []) expect(value, `${where}.${key} is required`).toHaveProperty(key);
  for (const [key, item] of Object.entries(value))
    expectFits(doc, item, resolved.properties[key]!, `${where}.${key}`);
}

const responseSchema = (doc: Doc, path: string, method: string, status: string) =>
  (doc.paths[path]![method]!.responses[status] as { content: { 'application/json': { schema: Schema } } })
    .content['application/json'].schema;

describe('GET /v1/openapi.json (generated from the routes’ zod schemas)', () => {
  const h = useServer({ version: '1.2.3' });
  const document = async () => (await (await h.request('/v1/openapi.json')).json()) as Doc;

  it('has servers, a unique operationId per operation, and every route the app serves', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.3');
    expect(doc.servers).toEqual([{ url: 'http://localhost' }]);
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        route: `${method.toUpperCase()} ${path}`,
        id: op.operationId,
      })),
    );
    for (const { route, id } of operations) expect(id, route).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
    // A route mounted the old way (`app.get`), outside the registry, would be served but not documented.
    const app = createApp({
      runtime: new FakeRuntime(h.store),
      turns: new Turns(new FakeRuntime(h.store), { cancelPollMs: 10, keepAliveMs: 1000 }),
      version: 'x',
      maxBodyBytes: 1,
      rateLimit: false,
      corsOrigins: [],
      metrics: new ServerMetrics(() => 0),
      isAdminToken: () => false,
      log: () => {},
      onError: () => {},
    });
    const routed = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    expect(operations.map((o) => o.route.replace(/\{(\w+)\}/g, ':$1')).sort()).toEqual([...routed].sort());
    const error = doc.components.schemas.Error!.properties!.error!.properties!.code as { enum: string[] };
    expect(error.enum).toEqual(Object.keys(ERROR_STATUS));
  });

  it('the Run and Session schemas list every field the handlers return', async () => {
    const doc = await document();
    // An admin token: a user token is not told the host and pid (roles.test.ts).
    const { token } = await h.store.tokens.create('alice', { admin: true });
    const session = await h.store.sessions.create('alice', { title: 't', agent: 'helper' });
    const parent = await h.store.runs.start({ sessionId: session.id, userId: 'alice' });
    const run = await h.store.runs.start({
      sessionId: session.id,
      userId: 'alice',
      model: 'scripted/test',
      agent: { name: 'helper', digest: 'a'.repeat(64) },
      parentRunId: parent,
      trigger: 'every 30s',
      startCheckpointId: 'cp-1',
    });
    const journal = await h.store.runs.journal(run);
    await journal.started({ id: 'call_1', name: 'read_file', skill: 'files' });
    await journal.finished({
      id: 'call_1',
      ok: false,
      durationMs: 3,
      truncated: true,
      error: 'no such file',
    });
    await h.store.runs.finish(run, {
      status: 'error',
      inputTokens: 5,
      outputTokens: 7,
      usage: [{ model: 'scripted/test', inputTokens: 5, outputTokens: 7 }],
      answer: 'the answer',
      error: 'it broke',
      endCheckpointId: 'cp-2',
    });
    const { runs } = (await (await h.request('/v1/runs', { token })).json()) as {
      runs: Record<string, unknown>[];
    };
    const full = runs.find((r) => r.id === run)!;
    // Every optional field is set, so the check below sees them all.
    expect(Object.keys(full).sort()).toEqual(Object.keys(doc.components.schemas.Run!.properties!).sort());
    expectFits(doc, runs, responseSchema(doc, '/v1/runs', 'get', '200').properties!.runs!, 'runs');

    const shown = await (await h.request(`/v1/sessions/${session.id}`, { token })).json();
    expectFits(doc, shown, responseSchema(doc, '/v1/sessions/{id}', 'get', '200'), 'session');
    const listed = await (await h.request('/v1/sessions', { token })).json();
    expectFits(doc, listed, responseSchema(doc, '/v1/sessions', 'get', '200'), 'sessions');
  });

  it('the Task, Agent and Grants schemas and a run’s detail list every field the handlers return', async () => {
    const doc = await document();
    const token = await h.token();
    const session = await h.store.sessions.create('alice');
    const run = await h.store.runs.start({ sessionId: session.id, userId: 'alice' });
    await h.store.runs.finish(run, { status: 'ok', answer: 'done' });
    const detail = await (await h.request(`/v1/runs/${run}`, { token })).json();
    expectFits(doc, detail, responseSchema(doc, '/v1/runs/{id}', 'get', '200'), 'run');

    const made = await h.store.tasks.create({
      userId: 'alice',
      prompt: 'p',
      agent: 'helper',
      schedule: '0 9 * * *',
      timezone: 'Europe/Paris',
      createdByRun: run,
    });
    await h.store.tasks.create({ userId: 'alice', prompt: 'q', every: 60 });
    await h.store.tasks.create({ userId: 'alice', prompt: 'r', at: new Date('2030-01-01T00:00:00Z') });
    const failed = await h.store.tasks.create({
      userId: 'alice',
      prompt: 's',
      at: new Date('2030-01-01T00:00:00Z'),
    });
    await h.store.tasks.finish(failed.id, { error: 'error: the model call failed (run 1)' });
    await h.request(`/v1/tasks/${made.id}`, { token, method: 'DELETE' });
    const tasks = (await (await h.request('/v1/tasks?all=true', { token })).json()) as {
      tasks: Record<string, unknown>[];
    };
    const keys = new Set(tasks.tasks.flatMap((t) => Object.keys(t)));
    expect([...keys].sort()).toEqual(Object.keys(doc.components.schemas.Task!.properties!).sort());
    expectFits(doc, tasks, responseSchema(doc, '/v1/tasks', 'get', '200'), 'tasks');

    const agents = await (await h.request('/v1/agents', { token })).json();
    expectFits(doc, agents, responseSchema(doc, '/v1/agents', 'get', '200'), 'agents');
    const grants = await (
      await h.request(`/v1/sessions/${session.id}/skills`, {
        token,
        method: 'PUT',
        json: { enable: ['notes'] },
      })
    ).json();
    expectFits(doc, grants, responseSchema(doc, '/v1/sessions/{id}/skills', 'put', '200'), 'grants');
    const renamed = await (
      await h.request(`/v1/sessions/${session.id}`, { token, method: 'PATCH', json: { title: 't' } })
    ).json();
    expectFits(doc, renamed, responseSchema(doc, '/v1/sessions/{id}', 'patch', '200'), 'renamed');
  });

  // Exploratory report: `GET /v1/sessions?q=` with more than 200 characters is a 400 `invalid-request` (its query
  // schema refuses it), but the document listed no 400 for the operation. Every operation whose request the schemas
  // can refuse (a body; a query or header parameter with a constraint) says so. Path parameters are not validated
  // there: a malformed id is 404, like a missing one.
  it('every operation whose request validation can refuse it documents the 400 invalid-request', async () => {
    const doc = await document();
    type Param = { in: string; name: string; schema?: Record<string, unknown> };
    const CONSTRAINTS = [
      'maxLength',
      'minLength',
      'pattern',
      'enum',
      'minimum',
      'maximum',
      'format',
      'const',
    ];
    const constrained = (schema: Record<string, unknown> | undefined): boolean =>
      !!schema &&
      (CONSTRAINTS.some((k) => k in schema) ||
        ['anyOf', 'oneOf', 'allOf'].some((k) => Array.isArray(schema[k])) ||
        (schema.type !== undefined && schema.type !== 'string'));
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const { parameters = [], requestBody } = op as { parameters?: Param[]; requestBody?: unknown };
        const validated =
          requestBody !== undefined ||
          parameters.some((p) => (p.in === 'query' || p.in === 'header') && constrained(p.schema));
        if (!validated) continue;
        const bad = op.responses['400'] as
          | { description: string; content: { 'application/json': { schema: Schema } } }
          | undefined;
        if (!bad?.description.includes('`invalid-request`')) missing.push(`${method.toUpperCase()} ${path}`);
        else expect(bad.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
    expect(missing).toEqual([]);
    // The report's case, end to end: the request is refused as the document says.
    const token = await h.token();
    const response = await h.request(`/v1/sessions?q=${'x'.repeat(201)}`, { token });
    expect(response.status).toBe(400);
    const body = await response.json();
    expectFits(doc, body, responseSchema(doc, '/v1/sessions', 'get', '400'), 'error');
    expect(body).toEqual({
      error: { code: 'invalid-request', message: expect.stringMatching(/^invalid query: q: /) },
    });
  });

  it('describes the tool-selection event and an approval request that find_tools added', async () => {
    const doc = await document();
    const events = doc.components.schemas.Event!;
    const members = (events.anyOf ?? events.oneOf ?? []) as Array<
      Schema & { properties: Record<string, any> }
    >;
    const selection = members.find((m) => JSON.stringify(m.properties?.type).includes('"tool-selection"'));
    expect(Object.keys(selection?.properties ?? {}).sort()).toEqual([
      'agent',
      'bound',
      'found',
      'held',
      'type',
    ]);
    expect(Object.keys(doc.components.schemas.ApprovalRequest!.properties!)).toContain('addedBy');
  });
});

describe('request validation keeps the API’s error shape', () => {
  const h = useServer();

  it('a body or query that does not fit its schema is 400 invalid-request naming the problem', async () => {
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    const cases: Array<[string, RequestInit & { json?: unknown }, RegExp]> = [
      [`/v1/sessions/${id}/turns`, { json: { prompt: 3 } }, /^invalid request body: prompt: /],
      [`/v1/sessions/${id}/turns`, { json: { prompt: '  ' } }, /prompt: must not be empty/],
      [`/v1/sessions/${id}/turns`, { json: [1] }, /^invalid request body: (?!json)\w/],
      ['/v1/sessions', { json: { enable: 'shell' } }, /^invalid request body: enable: /],
      ['/v1/runs?limit=501', {}, /^invalid query: limit: /],
    ];
    for (const [path, init, message] of cases) {
      const response = await h.request(path, { token, ...init });
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error.code).toBe('invalid-request');
      expect(body.error.message).toMatch(message);
    }
    // Without a token, 401 comes first: nothing about the body is told to an unknown caller.
    expect((await h.request(`/v1/sessions/${id}/turns`, { json: { prompt: 3 } })).status).toBe(401);
  });
});

describe('public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ApiError',
      'ERROR_STATUS',
      'Workspaces',
      'admitTurn',
      'createMcpEndpoint',
      'createServer',
      'isApiError',
      'openApiDocument',
    ]);
  });
});
