import { createToken, listTokens, revokeToken } from '@birdie/runtime/api-tokens';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';
import { printList } from '../render/list.js';

/** `birdie tokens create --user NAME`: the token is printed once, on stdout; the store keeps its hash only. */
export async function tokensCreateCommand({ io, values }: CommandContext): Promise<number> {
  if (typeof values.user !== 'string')
    throw new UsageError('--user NAME is required: the token acts as that user');
  const { token, record } = await createToken(io, values.user, {
    ...(typeof values.name === 'string' ? { name: values.name } : {}),
    ...(values.admin === true ? { admin: true } : {}),
  });
  if (values.json) write(io.stdout, JSON.stringify({ ...record, token }));
  else {
    write(io.stdout, token);
    const role = record.admin ? 'admin token' : 'token';
    write(
      io.stderr,
      `birdie: ${role} ${record.id} for user ${record.userId}; it is shown only now (birdie keeps its hash). Revoke it with \`birdie tokens revoke ${record.id}\`.`,
    );
  }
  return EXIT_OK;
}

/** `birdie tokens list`: the tokens not revoked; with `--revoked`, the revoked ones and when each was. */
export async function tokensListCommand({ io, values }: CommandContext): Promise<number> {
  const revoked = values.revoked === true;
  const tokens = await listTokens(io, typeof values.user === 'string' ? values.user : undefined, { revoked });
  return printList(io, values, tokens, {
    empty: revoked ? 'No revoked tokens.' : 'No tokens. Make one with `birdie tokens create --user NAME`.',
    header: ['ID', 'USER', 'ROLE', 'NAME', 'CREATED', 'LAST USED', ...(revoked ? ['REVOKED'] : [])],
    plainHeader: true,
    row: (t) => [
      t.id,
      t.userId,
      t.admin ? 'admin' : 'user',
      t.name ?? '-',
      t.createdAt.toISOString(),
      t.lastUsedAt ? t.lastUsedAt.toISOString() : 'never',
      ...(revoked ? [t.revokedAt ? t.revokedAt.toISOString() : '-'] : []),
    ],
  });
}

export async function tokensRevokeCommand({ io, positionals }: CommandContext): Promise<number> {
  const { alreadyRevokedAt } = await revokeToken(io, positionals[0]!);
  write(
    io.stderr,
    alreadyRevokedAt
      ? `birdie: token ${positionals[0]} was already revoked on ${alreadyRevokedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`
      : `birdie: token ${positionals[0]} revoked`,
  );
  return EXIT_OK;
}
