import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureFolder } from './folders.js';
import { birdieHome } from './paths.js';

/** `<home>/sessions/<id>`: a session's own data folder (the todo plan lives there). The id is validated upstream. */
export function sessionDir(env: NodeJS.ProcessEnv, sessionId: string): string {
  return join(birdieHome(env), 'sessions', sessionId);
}

/**
 * The environment every skill tool of a session runs with. The folder is created here, just before a tool could
 * need it (not when a session is made), readable by its owner only.
 */
export async function sessionToolEnv(
  env: NodeJS.ProcessEnv,
  sessionId: string,
): Promise<Record<string, string>> {
  const home = birdieHome(env);
  const dir = sessionDir(env, sessionId);
  await ensureFolder(dir);
  return { BIRDIE_HOME: home, BIRDIE_SESSION_DIR: dir };
}

/** Deleting a session removes its data folder too (nothing there outlives the session). */
export async function removeSessionDir(env: NodeJS.ProcessEnv, sessionId: string): Promise<void> {
  await rm(sessionDir(env, sessionId), { recursive: true, force: true });
}
