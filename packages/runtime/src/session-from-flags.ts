import type { Session } from '@birdie/store';
import { type AgentGaps, agentGaps } from './agent-gaps.js';
import type { Flags } from './flags.js';
import { agentFlag, type Runtime, staleGrantNotes } from './runtime.js';
import { useSession } from './session-start.js';
import { skillFlags } from './skill-flags.js';

/** The session a front end's turns go to, and what the user should hear about it before the first turn. */
export interface SessionFromFlags {
  session: Session;
  /** `--agent`'s agent (its loaded name), undefined without the flag. */
  agent?: string;
  /** The session's grants that another skill file now shadows (they do not carry over), one sentence each. */
  staleGrants: string[];
  /** What `agent` names that the session does not give it. */
  gaps?: AgentGaps;
  /** For a session resumed without `--agent`: the agent that spoke last, which it goes on with. */
  lastAgent?: string;
}

/**
 * Opens the session `--session-id` (`id`) names, or makes a new one, as a front end's flags say: `--enable` and
 * `--disable` change its grants, `--agent` picks who answers. Both flags are checked before a session is made, so a
 * typo leaves nothing behind. `warn` receives the settings' warnings when a session is made (default: stderr).
 */
export async function sessionFromFlags(
  rt: Runtime,
  flags: Flags,
  id: string | undefined,
  options: { warn?(line: string): void } = {},
): Promise<SessionFromFlags> {
  const skills = skillFlags(rt, flags);
  const agent = agentFlag(rt, flags);
  const session = await useSession(rt, id, {
    flags: skills,
    ...(options.warn ? { warn: options.warn } : {}),
  });
  const gaps = agent === undefined ? undefined : await agentGaps(rt, session.id, agent);
  const lastAgent =
    agent === undefined && id ? await rt.agent.currentAgent(session.id).catch(() => undefined) : undefined;
  return {
    session,
    staleGrants: staleGrantNotes(rt, session.id),
    ...(agent !== undefined ? { agent } : {}),
    ...(gaps ? { gaps } : {}),
    ...(lastAgent ? { lastAgent } : {}),
  };
}
