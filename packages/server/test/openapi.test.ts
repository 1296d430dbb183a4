import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ERROR_STATUS } from '../src/errors.js';
import * as api from '../src/index.js';
import { Turns } from '../src/turns.js';
import { FakeRuntime, useServer } from './helpers.js';

describe('GET /v1/openapi.json', () => {
  const h = useServer({ version: '1.2.3' });

  it('describes exactly the routes the server has, each error code with its status', async () => {
    const doc = (await (await h.request('/v1/openapi.json')).json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.3');
    const described = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((k) => k !== 'parameters')
          .map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      )
      .sort();
    const app = createApp({
      runtime: new FakeRuntime(h.store),
      turns: new Turns(new FakeRuntime(h.store), { cancelPollMs: 10, keepAliveMs: 1000 }),
      version: 'x',
      maxBodyBytes: 1,
      rateLimit: false,
      corsOrigins: [],
      onError: () => {},
    });
    const routed = [
      ...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`)),
    ].sort();
    expect(described).toEqual(routed);
    const codes = JSON.stringify(doc);
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(codes).toContain(code);
      expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(status);
    }
  });
});

describe('public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ApiError',
      'ERROR_STATUS',
      'Workspaces',
      'createServer',
      'isApiError',
      'openApiDocument',
    ]);
  });
});
