import type { ApiToken, Store } from '@birdie/store';
import { isStoreError } from '@birdie/store/errors';
import { ApiError } from './errors.js';
import { apiErrorOf } from './store-errors.js';

// Roles. A user token acts as its user only; an admin token (`birdie tokens create --admin`) acts as its user and may
// also list and revoke every token and read any user's run log. Nothing here ever returns a token or its hash: the
// store keeps only the hash, and `tokenJson` names the fields it shows.

/** Refuses a user token on an admin route (403 `forbidden`, which names the role needed). */
export function requireAdmin(token: ApiToken): void {
  if (!token.admin)
    throw new ApiError(
      'forbidden',
      'this needs an admin token (birdie tokens create --user NAME --admin); yours is a user token',
    );
}

/** A token as the API shows it: who and what, never the secret or its hash. */
export function tokenJson(t: ApiToken) {
  return {
    id: t.id,
    userId: t.userId,
    ...(t.name !== undefined ? { name: t.name } : {}),
    role: t.admin ? ('admin' as const) : ('user' as const),
    createdAt: t.createdAt.toISOString(),
    ...(t.lastUsedAt !== undefined ? { lastUsedAt: t.lastUsedAt.toISOString() } : {}),
  };
}

/** `GET /v1/tokens[?user=U]`: every token (or one user's), oldest first; admin only. */
export async function listTokens(
  store: Store,
  caller: ApiToken,
  user: string | undefined,
): Promise<{ tokens: ReturnType<typeof tokenJson>[] }> {
  requireAdmin(caller);
  const tokens = await storeCall(() => store.tokens.list(user));
  return { tokens: tokens.map(tokenJson) };
}

/** `DELETE /v1/tokens/{id}`: the token stops working on every worker at its next request; admin only. */
export async function revokeToken(store: Store, caller: ApiToken, id: string): Promise<void> {
  requireAdmin(caller);
  let revoked: boolean;
  try {
    revoked = await store.tokens.revoke(id);
  } catch (error) {
    if (isStoreError(error, 'invalid-id'))
      throw new ApiError('not-found', `no token ${id}`, { cause: error });
    throw apiErrorOf(error) ?? error;
  }
  if (!revoked) throw new ApiError('not-found', `no token ${id}`);
}

/**
 * Whose run log `GET /v1/runs?user=U` reads: the caller's own without `user` (or with their own name); another
 * user's only for an admin token (403 otherwise, so a user learns nothing about who exists).
 */
export function runsUserOf(caller: ApiToken, user: string | undefined): string {
  if (user === undefined || user === caller.userId) return caller.userId;
  requireAdmin(caller);
  return user;
}

/** A store call whose only argument from the request is a user name: a malformed one is 400, not 404. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isStoreError(error, 'invalid-id'))
      throw new ApiError('invalid-request', error.message, { cause: error });
    throw apiErrorOf(error) ?? error;
  }
}
