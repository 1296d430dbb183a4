import type { ScheduledTask } from '@birdie/store';
import type { Runtime } from './runtime.js';

// A recurring task names the agent that runs it. When no agent file defines that agent any more (removed, renamed, or
// a folder no longer trusted), or the server's operator does not allow it, every firing would make a session and end
// in an error, at every due time, forever. Such a task is held instead: left out of the schedule and said once; it is
// scheduled again as soon as the agent is there and said again if it is held again. `birdie start` watches the agent
// files; `birdie serve` reads them, and its settings, at start: there a hold lasts until the server restarts.
// A one-time task is not held: its only firing fails and ends it, which says why once.

/** Why a task's agent cannot run it here; undefined: it can. */
export type AgentRefusal = (agent: string) => string | undefined;

/** How a hold is told: whose tasks (the cancel command names `--user`), and whether the agent files are watched. */
export interface HoldWording {
  withUser?: boolean;
  /** The agent files are watched (`birdie start`); else read at start only (`birdie serve`). */
  watched?: boolean;
}

/** What a held task's notice says, with how to end the hold. */
export function agentHoldReason(task: ScheduledTask, refusal: string | undefined, wording: HoldWording): string {
  const cancel = `birdie tasks cancel ${task.id}${wording.withUser ? ` --user ${task.userId}` : ''}`;
  if (refusal !== undefined)
    return `${refusal}; it runs once that setting allows the agent and the server restarts, or cancel it (${cancel})`;
  const lifted = wording.watched
    ? 'it runs again once one does (birdie agents list shows the agents found)'
    : 'it runs once one does and the server restarts (it reads the agent files at start)';
  return `it runs agent "${task.agent}", which no agent file here defines now; ${lifted}, or cancel it (${cancel})`;
}

export class AgentHolds {
  /** The tasks held and said, so that each hold is said once, and again only after it was lifted. */
  readonly #said = new Set<number>();

  constructor(
    private readonly rt: Pick<Runtime, 'registry'>,
    private readonly say: (task: ScheduledTask, why: string) => void,
    private readonly options: HoldWording & { refusal?: AgentRefusal } = {},
  ) {}

  /** The ids of the tasks the last `schedulable` call held. */
  get held(): number[] {
    return [...this.#said];
  }

  /** `tasks` less those held now; says each task held since the last call. */
  schedulable(tasks: readonly ScheduledTask[]): ScheduledTask[] {
    const snapshot = this.rt.registry.current();
    const held = new Set<number>();
    const kept = tasks.filter((task) => {
      // No agent ('' too): the default agent, always there.
      if (!task.agent || task.at !== undefined) return true;
      const refusal = this.options.refusal?.(task.agent);
      if (refusal === undefined && snapshot.getAgent(task.agent)) return true;
      held.add(task.id);
      if (!this.#said.has(task.id)) {
        this.#said.add(task.id);
        this.say(task, agentHoldReason(task, refusal, this.options));
      }
      return false;
    });
    for (const id of this.#said) if (!held.has(id)) this.#said.delete(id);
    return kept;
  }
}
