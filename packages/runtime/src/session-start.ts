import type { Session } from '@birdie/store';
import { warn } from './io.js';
import { findSession, type Runtime, requireWritable } from './runtime.js';
import { applySkillFlags, type SkillFlags, settingSkills, skillsOver } from './skill-flags.js';
import { rememberStartingGrants } from './starting-grants.js';

export interface NewSessionOptions {
  /** Whose session it is (default: the runtime's user). */
  userId?: string;
  /**
   * Number it among the user's own sessions, its id carrying the user (`alice~2026-11-29_1`): a server many users
   * share. Default: the store-wide `YYYY-MM-DD_N` of one user's CLI.
   */
  perUser?: boolean;
  title?: string;
  agent?: string;
  /** `--enable` / `--disable` (or an API request's list), over the settings: a flag wins. */
  flags?: SkillFlags;
  /**
   * Where a warning about the settings goes. Default: stderr, each warning once per process (a server or `birdie
   * start` makes many sessions). The REPL shows them above its next prompt.
   */
  warn?(line: string): void;
}

const warned = new WeakMap<Runtime, Set<string>>();

function warnOnce(rt: Runtime, line: string): void {
  const seen = warned.get(rt) ?? new Set<string>();
  warned.set(rt, seen);
  if (seen.has(line)) return;
  seen.add(line);
  warn(rt.io, `birdie: ${line}`);
}

/**
 * Makes a new session: the one place every command makes one (the REPL's start and `/new`, `run`, `acp`, `serve`,
 * `start`), so each starts with the skills of the `skills.enable` / `skills.disable` settings and the flags over them.
 * They are granted through the policy as `/skill enable` grants (bound to the skill file that provides the name now:
 * a skill of a folder the user has not trusted for what it declares now is not loaded, so it cannot be granted). A
 * resumed session is not made here: it keeps its own grants.
 */
export async function createSession(rt: Runtime, options: NewSessionOptions = {}): Promise<Session> {
  const userId = options.userId ?? rt.userId;
  const { skills, warnings } = settingSkills(rt);
  const warn = options.warn ?? ((line: string) => warnOnce(rt, line));
  for (const line of warnings) warn(line);
  const session = await rt.store.sessions.create(userId, {
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.perUser ? { perUser: true } : {}),
  });
  await rt.loadGrants(session.id, userId);
  const starting = skillsOver(skills, options.flags ?? { enable: [], disable: [] });
  if (starting.enable.length > 0 || starting.disable.length > 0) await applySkillFlags(rt, session, starting);
  rememberStartingGrants(session, rt.policy.grants(session.id));
  return session;
}

/**
 * Opens the given session of the user (the policy reads its grants from the store; `flags` change them) or makes a
 * new one (see `createSession`).
 */
export async function useSession(
  rt: Runtime,
  id: string | undefined,
  options: Pick<NewSessionOptions, 'flags' | 'warn'> = {},
): Promise<Session> {
  requireWritable(rt.store);
  // An empty id (a script's empty "$SID") is an id that names no session, not a request for a new one.
  if (id === undefined) return createSession(rt, options);
  const session = await findSession(rt.store, id, rt.userId);
  await rt.loadGrants(session.id);
  if (options.flags) await applySkillFlags(rt, session, options.flags);
  return session;
}
