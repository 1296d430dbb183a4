import type { ApiToken, Store } from '@birdie/store';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';
import type { ApiEnv } from './routes/define.js';
import { apiErrorOf } from './store-errors.js';

/** `Authorization: Bearer TOKEN` → the token's record in `c.get('token')`, then the token's rate; else 401 / 429. */
export function authenticate(store: Store, limiter: RateLimiter | undefined): MiddlewareHandler<ApiEnv> {
  async function verify(token: string): Promise<ApiToken | undefined> {
    try {
      return await store.tokens.verify(token);
    } catch (error) {
      throw apiErrorOf(error) ?? error;
    }
  }
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const token = match ? await verify(match[1]!) : undefined;
    if (!token) {
      c.header('WWW-Authenticate', 'Bearer realm="birdie"');
      throw new ApiError('unauthorized', 'a valid token is required: Authorization: Bearer TOKEN');
    }
    const wait = limiter?.take(token.id) ?? 0;
    if (wait > 0)
      throw new ApiError('rate-limited', `too many requests; retry in ${wait} s`, { retryAfter: wait });
    c.set('token', token);
    await next();
  };
}

/**
 * Whether a token is an operator's: its stored role (`birdie tokens create --admin` sets `token.admin`), the same
 * one the admin routes check (admin.ts). The application may pass its own check (`ServerOptions.isAdminToken`).
 */
export function tokenIsAdmin(token: ApiToken): boolean {
  return token.admin === true;
}
