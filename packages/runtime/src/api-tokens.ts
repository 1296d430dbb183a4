import { type ApiToken, isStoreError } from '@birdie/store';
import { UsageError } from './errors.js';
import type { RuntimeIo } from './io.js';
import { checkUserId } from './runtime.js';
import { withStore } from './store-command.js';

// The HTTP API's bearer tokens (`birdie tokens`): the store keeps each token's hash only.

/** A new token acting as `userId` (an admin one with `admin`); the token itself exists only in this answer. */
export async function createToken(
  io: RuntimeIo,
  userId: string,
  options: { name?: string; admin?: boolean } = {},
): Promise<{ token: string; record: ApiToken }> {
  const user = await checkUserId(userId);
  return withStore(io, true, (store) =>
    store.tokens
      .create(user, {
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.admin === true ? { admin: true } : {}),
      })
      .catch((error: unknown) => {
        // The only argument the store can refuse here is the name: the user's mistake, like a bad --user.
        if (isStoreError(error, 'invalid-argument')) throw new UsageError(error.message);
        throw error;
      }),
  );
}

/**
 * Every token not revoked (of `userId` when given), without the tokens themselves; with `revoked`, the revoked ones,
 * each with when it was revoked.
 */
export async function listTokens(
  io: RuntimeIo,
  userId?: string,
  options: { revoked?: boolean } = {},
): Promise<ApiToken[]> {
  const user = userId === undefined ? undefined : await checkUserId(userId);
  return withStore(io, false, (store) =>
    store.tokens.list(user, options.revoked === true ? { revoked: true } : {}),
  );
}

/**
 * Revokes a token by its id: `{ revokedAt }` of an earlier revocation when it already was (the token is revoked
 * either way), else `{}`; usage errors for a malformed id or one no token has.
 */
export async function revokeToken(io: RuntimeIo, id: string): Promise<{ alreadyRevokedAt?: Date }> {
  const { isStoreError } = await import('@birdie/store/errors');
  return withStore(io, true, async (store) => {
    let revoked: boolean;
    try {
      revoked = await store.tokens.revoke(id);
    } catch (error) {
      if (isStoreError(error, 'invalid-id')) throw new UsageError(error.message, { cause: error });
      throw error;
    }
    if (revoked) return {};
    const earlier = (await store.tokens.list(undefined, { revoked: true })).find((t) => t.id === id);
    if (earlier?.revokedAt) return { alreadyRevokedAt: earlier.revokedAt };
    throw new UsageError(`no token ${id}. Run \`birdie tokens list\`.`);
  });
}
