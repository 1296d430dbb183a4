import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { birdieHome } from './paths.js';

/** `<home>/sessions/<id>`: a session's own data folder (the todo plan lives there). The id is validated upstream. */
export function sessionDir(env: NodeJS.ProcessEnv, sessionId: string): string {
  return join(birdieHome(env), 'sessions', sessionId);
}

/** Deleting a session removes its data folder too (nothing there outlives the session). */
export async function removeSessionDir(env: NodeJS.ProcessEnv, sessionId: string): Promise<void> {
  await rm(sessionDir(env, sessionId), { recursive: true, force: true });
}
