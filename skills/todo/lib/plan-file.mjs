// Where a session's plan lives, and how it is read and written. One JSON file per session, never a global one, so two
// sessions (or two terminals) never see each other's plans.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class TodoError extends Error {
  /** @param {string} code @param {string} message @param {unknown} [cause] */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TodoError';
    this.code = code;
  }
}

/**
 * The plan file for the calling session. The runtime tells the tool which session it runs for through the call
 * context's `env` (or, when a host runs one session per process, the process environment):
 * `BIRDIE_SESSION_DIR` (the session's own data folder) wins; otherwise `BIRDIE_SESSION_ID` under
 * `$BIRDIE_HOME/sessions/` (default `~/.birdie/sessions/`).
 * @param {{ env?: Record<string, string | undefined> } | undefined} context
 */
export function planFileFor(context) {
  // The call context names the session when the host passes one; the process environment is only the fallback (it is
  // shared by every session a long-running host serves).
  const given = context?.env;
  const env =
    given?.BIRDIE_SESSION_DIR || given?.BIRDIE_SESSION_ID
      ? { BIRDIE_HOME: process.env.BIRDIE_HOME, HOME: process.env.HOME, ...given }
      : process.env;
  if (env.BIRDIE_SESSION_DIR) return join(resolve(env.BIRDIE_SESSION_DIR), 'todo.json');
  const id = env.BIRDIE_SESSION_ID;
  if (!id) {
    throw new TodoError(
      'no-session',
      'The todo tools keep one plan per session, but no session was given: the runtime passes it as ' +
        'BIRDIE_SESSION_ID (or BIRDIE_SESSION_DIR). With `birdie tool`, pass --session-id ID; outside birdie, set ' +
        'one yourself, e.g. BIRDIE_SESSION_ID=scratch.',
    );
  }
  if (!SESSION_ID.test(id)) {
    throw new TodoError(
      'bad-session',
      `Session id "${id}" is not valid (letters, digits, "_" and "-" only).`,
    );
  }
  const home = env.BIRDIE_HOME ? resolve(env.BIRDIE_HOME) : join(env.HOME || homedir(), '.birdie');
  return join(home, 'sessions', id, 'todo.json');
}

/**
 * @typedef {{ text: string; done: boolean; summary?: string }} Step
 * @typedef {{ version: 1; steps: Step[]; createdAt: string; updatedAt: string }} Plan
 */

/** @param {string} file @returns {Promise<Plan | undefined>} */
export async function readPlan(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const plan = JSON.parse(text);
    if (plan?.version === 1 && Array.isArray(plan.steps)) return plan;
  } catch {}
  throw new TodoError('corrupt-plan', `The plan file ${file} is damaged; create a new plan to replace it.`);
}

/** Temp file + rename: a crash mid-write never leaves half a plan. @param {string} file @param {Plan} plan */
export async function writePlan(file, plan) {
  // The session folder may not exist yet; a plan is the session's own business, so only its owner may read it.
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(plan, null, 2)}\n`, { flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

const queues = new Map();

/**
 * Runs read-modify-write steps on one plan file one at a time: a model may mark two steps done in parallel tool calls.
 * @template T
 * @param {string} file
 * @param {() => Promise<T>} task
 * @returns {Promise<T>}
 */
export function serialised(file, task) {
  const previous = queues.get(file) ?? Promise.resolve();
  const next = previous.then(task, task);
  const settled = next.then(
    () => {},
    () => {},
  );
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return next;
}
