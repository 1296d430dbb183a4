import { checkOptions } from './checks.js';
import { type Db, immediate } from './db.js';
import { validateUserId } from './ids.js';
import type { SyncOf, TokensRepo } from './interface.js';
import {
  checkTokenAdmin,
  checkTokenId,
  checkTokenName,
  hashToken,
  isTokenShaped,
  newToken,
  standingOf,
  TOKEN_USE_RESOLUTION_MS,
  type TokenRow,
  toApiToken,
} from './session-files-check.js';

const COLUMNS = 'id, user_id, name, admin, created_at, last_used_at, revoked_at';

export function createTokens(db: Db): SyncOf<TokensRepo> {
  const insert = db.prepare(
    'INSERT INTO api_tokens (id, user_id, name, admin, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string], TokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`);
  // A revoked token stays in the table (for `standing`) but is never verified, and listed only when asked for.
  const all = db.prepare<[], TokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE revoked_at IS NULL ORDER BY created_at, id`,
  );
  const ofUser = db.prepare<[string], TokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id`,
  );
  const allRevoked = db.prepare<[], TokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE revoked_at IS NOT NULL ORDER BY created_at, id`,
  );
  const ofUserRevoked = db.prepare<[string], TokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE user_id = ? AND revoked_at IS NOT NULL ORDER BY created_at, id`,
  );
  const byHash = db.prepare<[string], TokenRow>(
    `SELECT ${COLUMNS} FROM api_tokens WHERE hash = ? AND revoked_at IS NULL`,
  );
  const used = db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?');
  const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const counts = db.prepare<[string], { n: number; live: number | null }>(
    'SELECT COUNT(*) AS n, SUM(revoked_at IS NULL) AS live FROM api_tokens WHERE user_id = ?',
  );
  return {
    create(userId, options) {
      validateUserId(userId);
      const opts = checkOptions(options);
      const name = opts.name === undefined ? null : checkTokenName(opts.name);
      const admin = checkTokenAdmin(opts.admin);
      const { id, token, hash } = newToken();
      immediate(db, () => insert.run(id, userId, name, admin ? 1 : 0, hash, Date.now()));
      return { token, record: toApiToken(byId.get(id)!) };
    },
    list(userId, opts) {
      const revoked = checkOptions(opts).revoked === true;
      if (userId === undefined) return (revoked ? allRevoked : all).all().map(toApiToken);
      return (revoked ? ofUserRevoked : ofUser).all(validateUserId(userId)).map(toApiToken);
    },
    revoke(id) {
      const checked = checkTokenId(id);
      return immediate(db, () => revoke.run(Date.now(), checked)).changes > 0;
    },
    standing(userId) {
      const { n, live } = counts.get(validateUserId(userId))!;
      return standingOf(n, live ?? 0);
    },
    verify(token) {
      if (!isTokenShaped(token)) return undefined;
      const row = byHash.get(hashToken(token));
      if (!row) return undefined;
      const now = Date.now();
      if (row.last_used_at === null || now - row.last_used_at >= TOKEN_USE_RESOLUTION_MS) {
        try {
          immediate(db, () => used.run(now, row.id));
          row.last_used_at = now;
        } catch {
          // A read-only or busy store still authenticates: the time of use is a convenience.
        }
      }
      return toApiToken(row);
    },
  };
}
