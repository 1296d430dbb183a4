import { createRoute, z } from '@hono/zod-openapi';
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
