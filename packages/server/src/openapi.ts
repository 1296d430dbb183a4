import { OpenAPIHono } from '@hono/zod-openapi';
import { ROUTES } from './routes/index.js';

const DESCRIPTION =
  'The birdie agent over HTTP. Every endpoint but `/v1/health`, `/v1/ready` and `/v1/openapi.json` needs `Authorization: Bearer TOKEN` (`birdie tokens create --user NAME`); a token acts as its user, who sees only their own sessions and runs; an admin token (`--admin`) may also list and revoke tokens, read the runs of any user and `/metrics`. Errors are `{ "error": { "code", "message" } }`.';

/**
 * The API as OpenAPI 3.1, generated from the routes' own zod schemas (the ones that validate requests), served at
 * `GET /v1/openapi.json` with the URL the client used as its server.
 */
export function openApiDocument(version: string, serverUrl = '/'): Record<string, unknown> {
  const generator = new OpenAPIHono();
  generator.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
  });
  for (const route of ROUTES) generator.openAPIRegistry.registerPath(route.definition);
  return generator.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'birdie', version, description: DESCRIPTION },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
  }) as unknown as Record<string, unknown>;
}
