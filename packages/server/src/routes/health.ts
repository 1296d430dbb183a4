import { createRoute, z } from '@hono/zod-openapi';
import { readiness } from '../readiness.js';
import { defineRoute, jsonContent } from './define.js';

export const health = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/health',
    operationId: 'getHealth',
    summary: 'Whether this worker is up (no token needed).',
    security: [],
    responses: {
      200: {
        description: 'Up.',
        content: jsonContent(
          z.object({ status: z.literal('ok'), version: z.string(), store: z.enum(['sqlite', 'postgres']) }),
        ),
      },
    },
  }),
  ({ version, store }) =>
    (c) =>
      c.json({ status: 'ok' as const, version, store: store.kind }, 200),
  { public: true },
);

export const openApi = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This document (no token needed).',
    security: [],
    responses: {
      200: { description: 'OpenAPI 3.1.', content: jsonContent(z.record(z.string(), z.unknown())) },
    },
  }),
  ({ document }) =>
    (c) =>
      c.json(document(new URL(c.req.url).origin), 200),
  { public: true },
);

const STORE_KIND = z.enum(['sqlite', 'postgres']);

export const ready = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/ready',
    operationId: 'getReady',
    summary:
      'Whether this worker can serve requests (no token needed): its store is reachable, its schema current and writable, and the worker is not shutting down. A readiness probe; `/v1/health` is the liveness one.',
    security: [],
    responses: {
      200: {
        description: 'Ready.',
        content: jsonContent(
          z.object({ status: z.literal('ready'), version: z.string(), store: STORE_KIND }),
        ),
      },
      503: {
        description: 'Not ready (`Retry-After`), with the reason.',
        content: jsonContent(
          z.object({
            status: z.literal('not-ready'),
            version: z.string(),
            store: STORE_KIND,
            reason: z.object({
              code: z.string().openapi({
                description:
                  "The store's error code (`unavailable`, `migration-failed`, `read-only`, `disk-full`, `malformed`, `closed`, …) or `shutting-down`.",
              }),
              message: z.string(),
            }),
          }),
        ),
      },
    },
  }),
  ({ version, store, turns }) =>
    async (c) => {
      const { status, body } = await readiness(store, { accepting: turns.isAccepting, version });
      if (status === 503) c.header('Retry-After', '5');
      return c.json(body, status) as never;
    },
  { public: true },
);
