import { createRoute, z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import { COMMON_ERRORS, defineRoute, errorResponses } from './define.js';

export const getMetrics = defineRoute(
  createRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary:
      "This worker's metrics in the Prometheus text format; needs an admin token (or use the separate metrics listener, `--metrics-port`).",
    responses: {
      200: {
        description: 'Prometheus text format 0.0.4.',
        content: { 'text/plain': { schema: z.string() } },
      },
      ...errorResponses('forbidden', ...COMMON_ERRORS),
    },
  }),
  ({ metrics, isAdminToken }) =>
    async (c) => {
      if (!isAdminToken(c.get('token'))) throw new ApiError('forbidden', 'the metrics need an admin token');
      const { text, contentType } = await metrics.scrape();
      return c.text(text, 200, { 'content-type': contentType });
    },
);
