import type { Session, Store } from '@birdie/store';
import type { Context } from 'hono';
import { ApiError } from '../errors.js';
import { apiErrorOf } from '../store-errors.js';
import type { ApiEnv } from './define.js';

/** The caller's session named in the path, or 404 (missing, malformed or another user's: never which). */
export async function sessionOf(c: Context<ApiEnv>, store: Store): Promise<Session> {
  const id = c.req.param('id') ?? '';
  try {
    const session = await store.sessions.get(id, c.get('token').userId);
    if (session) return session;
  } catch (error) {
    throw apiErrorOf(error, id) ?? error;
  }
  throw new ApiError('not-found', `no session ${id}`);
}
