import { createRoute, z } from '@hono/zod-openapi';
import { listTokens, revokeToken } from '../admin.js';
import { COMMON_ERRORS, defineRoute, errorResponses, jsonContent } from './define.js';
import { filterText, TokenSchema } from './schemas.js';

export const listTokensRoute = defineRoute(
  createRoute({
    method: 'get',
    path: '/v1/tokens',
    operationId: 'listTokens',
    summary: 'Every API token (never the token or its hash), oldest first. Admin tokens only.',
    request: {
      query: z.object({ user: filterText().optional().openapi({ description: "Only this user's tokens." }) }),
    },
    responses: {
      200: { description: 'Tokens.', content: jsonContent(z.object({ tokens: z.array(TokenSchema) })) },
      ...errorResponses('invalid-request', 'forbidden', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) =>
      c.json(await listTokens(store, c.get('token'), c.req.valid('query').user), 200),
);

/** A token id in the path. Not validated here: a malformed id is 404 like a missing one. */
const TokenParams = z.object({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    pattern: '^tok_[0-9a-f]{16}$',
    description: 'Token id (`tok_` and 16 hex digits).',
  }),
});

export const revokeTokenRoute = defineRoute(
  createRoute({
    method: 'delete',
    path: '/v1/tokens/{id}',
    operationId: 'revokeToken',
    summary: 'Revoke a token: requests with it fail from the next one, on every worker. Admin tokens only.',
    request: { params: TokenParams },
    responses: {
      204: { description: 'Revoked.' },
      ...errorResponses('forbidden', 'not-found', ...COMMON_ERRORS),
    },
  }),
  ({ store }) =>
    async (c) => {
      await revokeToken(store, c.get('token'), c.req.valid('param').id);
      return c.body(null, 204);
    },
);
