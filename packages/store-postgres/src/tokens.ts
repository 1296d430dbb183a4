import {
  checkOptions,
  checkTokenAdmin,
  checkTokenId,
  checkTokenName,
  hashToken,
  isTokenShaped,
  newToken,
  standingOf,
  TOKEN_USE_RESOLUTION_MS,
  type TokenRow,
  type TokensRepo,
  toApiToken,
  validateUserId,
} from '@birdie/store/backend';
import type { Db } from './db.js';

const COLUMNS = 'id, user_id, name, admin, created_at, last_used_at, revoked_at';

export function createTokens(db: Db): TokensRepo {
  return {
    async create(userId, options) {
      validateUserId(userId);
      const opts = checkOptions(options);
      const name = opts.name === undefined ? null : checkTokenName(opts.name);
      const admin = checkTokenAdmin(opts.admin);
      const { id, token, hash } = newToken();
      const { rows } = await db.query<TokenRow>(
        `INSERT INTO api_tokens (id, user_id, name, admin, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [id, userId, name, admin, hash, Date.now()],
      );
      return { token, record: toApiToken(rows[0]!) };
    },
    // A revoked token stays in the table (for `standing`) but is never verified, and listed only when asked for.
    async list(userId, opts) {
      const which = checkOptions(opts).revoked === true ? 'revoked_at IS NOT NULL' : 'revoked_at IS NULL';
      const { rows } =
        userId === undefined
          ? await db.query<TokenRow>(
              `SELECT ${COLUMNS} FROM api_tokens WHERE ${which} ORDER BY created_at, id`,
            )
          : await db.query<TokenRow>(
              `SELECT ${COLUMNS} FROM api_tokens WHERE user_id = $1 AND ${which} ORDER BY created_at, id`,
              [validateUserId(userId)],
            );
      return rows.map(toApiToken);
    },
    async revoke(id) {
      const { rowCount } = await db.query(
        'UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
        [Date.now(), checkTokenId(id)],
      );
      return (rowCount ?? 0) > 0;
    },
    async standing(userId) {
      const { rows } = await db.query<{ n: number; live: number }>(
        'SELECT count(*)::int AS n, count(*) FILTER (WHERE revoked_at IS NULL)::int AS live FROM api_tokens WHERE user_id = $1',
        [validateUserId(userId)],
      );
      return standingOf(rows[0]!.n, rows[0]!.live);
    },
    async verify(token) {
      if (!isTokenShaped(token)) return undefined;
      const { rows } = await db.query<TokenRow>(
        `SELECT ${COLUMNS} FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL`,
        [hashToken(token)],
      );
      const row = rows[0];
      if (!row) return undefined;
      const now = Date.now();
      if (
        !db.state.readOnly &&
        (row.last_used_at === null || now - row.last_used_at >= TOKEN_USE_RESOLUTION_MS)
      ) {
        try {
          await db.query('UPDATE api_tokens SET last_used_at = $1 WHERE id = $2', [now, row.id]);
          row.last_used_at = now;
        } catch {
          // The time of use is a convenience: a failed update still authenticates.
        }
      }
      return toApiToken(row);
    },
  };
}
