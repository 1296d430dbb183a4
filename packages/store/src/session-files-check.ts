// Argument checks and row shapes of the session files and the API tokens, shared by every back end.
import { createHash, randomBytes } from 'node:crypto';
import { checkObject } from './checks.js';
import { StoreError } from './errors.js';
import type { ApiToken, SessionFile, SessionFileChanges, TokenStanding } from './interface.js';

/** What a session's folder may hold in the store. */
export const SESSION_FILE_LIMITS = Object.freeze({
  /** Characters of a relative path. */
  pathChars: 255,
  /** Bytes of one file. */
  fileBytes: 1024 * 1024,
  /** Bytes of all the session's files together. */
  sessionBytes: 8 * 1024 * 1024,
  /** Files per session. */
  files: 256,
});

const SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;

/** A relative path of `[A-Za-z0-9._-]` segments joined by `/`, without `.` or `..` segments; else `invalid-argument`. */
export function checkFilePath(path: unknown): string {
  const ok =
    typeof path === 'string' &&
    path.length > 0 &&
    path.length <= SESSION_FILE_LIMITS.pathChars &&
    path.split('/').every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
  if (!ok) {
    throw new StoreError(
      'invalid-argument',
      `invalid session file path ${JSON.stringify(String(path).slice(0, 80))}: expected relative segments of [A-Za-z0-9._-] joined by "/" (no "." or ".."), at most ${SESSION_FILE_LIMITS.pathChars} characters`,
    );
  }
  return path as string;
}

export interface CheckedPut {
  path: string;
  content: Buffer;
  sha256: string;
}

/** The changes, checked: paths valid, each given once, every file within `fileBytes`. */
export function checkFileChanges(changes: SessionFileChanges): { put: CheckedPut[]; remove: string[] } {
  checkObject(changes, 'changes');
  const puts = changes.put ?? [];
  const removes = changes.remove ?? [];
  if (!Array.isArray(puts) || !Array.isArray(removes)) {
    throw new StoreError('invalid-argument', 'changes.put and changes.remove must be arrays');
  }
  const seen = new Set<string>();
  const once = (path: string) => {
    if (seen.has(path)) throw new StoreError('invalid-argument', `session file ${path} is changed twice`);
    seen.add(path);
    return path;
  };
  const put = puts.map((p) => {
    const path = once(checkFilePath(p?.path));
    if (!(p.content instanceof Uint8Array)) {
      throw new StoreError(
        'invalid-argument',
        `the content of session file ${path} must be bytes (Uint8Array)`,
      );
    }
    if (p.content.byteLength > SESSION_FILE_LIMITS.fileBytes) {
      throw new StoreError(
        'invalid-argument',
        `session file ${path} has ${p.content.byteLength} bytes, more than the ${SESSION_FILE_LIMITS.fileBytes} a session file may have`,
      );
    }
    const content = Buffer.from(p.content.buffer, p.content.byteOffset, p.content.byteLength);
    return { path, content: Buffer.from(content), sha256: sha256Hex(content) };
  });
  const remove = removes.map((path) => once(checkFilePath(path)));
  return { put, remove };
}

/** Refuses changes that would take the session over its file count or byte total. */
export function checkFileTotals(
  sessionId: string,
  existing: ReadonlyMap<string, number>,
  changes: { put: CheckedPut[]; remove: string[] },
): void {
  const sizes = new Map(existing);
  for (const path of changes.remove) sizes.delete(path);
  for (const p of changes.put) sizes.set(p.path, p.content.byteLength);
  let total = 0;
  for (const size of sizes.values()) total += size;
  if (sizes.size > SESSION_FILE_LIMITS.files) {
    throw new StoreError(
      'invalid-argument',
      `session ${sessionId} would have ${sizes.size} files, more than the ${SESSION_FILE_LIMITS.files} a session may keep`,
    );
  }
  if (total > SESSION_FILE_LIMITS.sessionBytes) {
    throw new StoreError(
      'invalid-argument',
      `the files of session ${sessionId} would take ${total} bytes, more than the ${SESSION_FILE_LIMITS.sessionBytes} a session may keep`,
    );
  }
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export interface SessionFileRow {
  path: string;
  size: number;
  sha256: string;
  updated_at: number;
}

export function toSessionFile(row: SessionFileRow): SessionFile {
  return { path: row.path, size: row.size, sha256: row.sha256, updatedAt: new Date(row.updated_at) };
}

/** Bytes read back, checked against their stored digest: `corrupt-record` when they differ. */
export function checkedContent(
  sessionId: string,
  path: string,
  content: Uint8Array,
  sha256: string,
  location: string,
): Uint8Array {
  if (sha256Hex(content) !== sha256) {
    const reason = 'the content does not match its SHA-256';
    throw new StoreError(
      'corrupt-record',
      `session file ${path} of session ${sessionId} in ${location} is damaged: ${reason}`,
      {
        damage: { sessionId, ns: '', table: 'session_files', reason },
        hint: 'write the file again (or delete the session) to replace the record',
      },
    );
  }
  return new Uint8Array(content);
}

// --- API tokens -------------------------------------------------------------------------------------------------

const TOKEN = /^bdt_[A-Za-z0-9_-]{43}$/;
const TOKEN_ID = /^tok_[0-9a-f]{16}$/;

/** How often `verify` records that a token was used. */
export const TOKEN_USE_RESOLUTION_MS = 60_000;

/** A new token (shown once), its public id and the hash that is stored. */
export function newToken(): { id: string; token: string; hash: string } {
  const token = `bdt_${randomBytes(32).toString('base64url')}`;
  return { id: `tok_${randomBytes(8).toString('hex')}`, token, hash: hashToken(token) };
}

/** The stored form of a token. A token has 256 random bits, so a fast hash is enough: nothing to brute-force. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Whether `token` looks like a token at all (checked before any query). */
export function isTokenShaped(token: unknown): token is string {
  return typeof token === 'string' && TOKEN.test(token);
}

export function checkTokenId(id: unknown): string {
  if (typeof id !== 'string' || !TOKEN_ID.test(id)) {
    throw new StoreError(
      'invalid-id',
      `invalid token id ${JSON.stringify(String(id).slice(0, 40))}: expected tok_ and 16 hex digits`,
    );
  }
  return id;
}

export function checkTokenAdmin(admin: unknown): boolean {
  if (admin === undefined) return false;
  if (typeof admin !== 'boolean')
    throw new StoreError('invalid-argument', 'a token is admin (true) or not (false)');
  return admin;
}

export function checkTokenName(name: unknown): string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.length > 100 ||
    /[\u0000-\u001f\u007f]/.test(name)
  ) {
    throw new StoreError('invalid-argument', 'a token name is 1-100 characters without control characters');
  }
  return name;
}

export interface TokenRow {
  id: string;
  user_id: string;
  name: string | null;
  /** 0/1 in SQLite, a boolean in PostgreSQL. */
  admin: number | boolean;
  created_at: number;
  last_used_at: number | null;
  /** When it was revoked; null while it is not (and in rows read without the column). */
  revoked_at?: number | string | null;
}

/** A user's standing from how many tokens they ever had and how many of those are not revoked. */
export function standingOf(tokens: number, live: number): TokenStanding {
  if (live > 0) return 'active';
  return tokens > 0 ? 'revoked' : 'none';
}

export function toApiToken(row: TokenRow): ApiToken {
  const token: ApiToken = {
    id: row.id,
    userId: row.user_id,
    admin: Boolean(row.admin),
    createdAt: new Date(row.created_at),
  };
  if (row.name !== null) token.name = row.name;
  if (row.last_used_at !== null) token.lastUsedAt = new Date(row.last_used_at);
  if (row.revoked_at !== null && row.revoked_at !== undefined)
    token.revokedAt = new Date(Number(row.revoked_at));
  return token;
}

// --- agents -----------------------------------------------------------------------------------------------------

const AGENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function checkAgentName(agent: unknown): string {
  if (typeof agent !== 'string' || !AGENT.test(agent)) {
    throw new StoreError(
      'invalid-argument',
      `invalid agent name ${JSON.stringify(String(agent).slice(0, 40))}: expected 1-128 of [A-Za-z0-9._-]`,
    );
  }
  return agent;
}
