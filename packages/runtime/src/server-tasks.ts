import { Workspaces } from '@birdie/server';
import type { ScheduledTask } from '@birdie/store';
import { heldTasks } from './held-tasks.js';
import { operatorPolicy } from './operator-policy.js';
import type { Runtime } from './runtime.js';
import type { ServeSetup } from './server-runtime.js';
import { TaskOrigins } from './task-origins.js';
import { TASK_PREFIX } from './unattended.js';
import {
  startUnattended,
  type UnattendedLoop,
  type UnattendedOptions,
  type UnattendedSource,
} from './unattended-loop.js';

// A task the model schedules from a session of a server (`birdie serve`'s API, its chat channels, `birdie mcp --http`)
// belongs to a token holder whose tools run in their workspace under the server's policy. The server runs it there;
// `birdie start` leaves it alone, or it would run in the operator's folder with the operator's settings.

export { TaskOrigins };

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The server session each task was scheduled from (undefined: elsewhere), leaving out a task whose lookup fails (its
 * run is another user's, or unreadable): whose it is cannot be told, so neither `birdie start` nor the server runs it.
 * Each such task is said once (an `error` event naming it), and again only after it read fine in between; the other
 * tasks are unaffected.
 */
async function originsOf(
  origins: TaskOrigins,
  tasks: readonly ScheduledTask[],
  told: Set<number>,
  onEvent: UnattendedOptions['onEvent'],
): Promise<Array<{ task: ScheduledTask; session: string | undefined }>> {
  const found: Array<{ task: ScheduledTask; session: string | undefined }> = [];
  for (const task of tasks) {
    try {
      found.push({ task, session: await origins.serverSession(task) });
      told.delete(task.id);
    } catch (error) {
      if (told.has(task.id)) continue;
      told.add(task.id);
      onEvent({
        type: 'error',
        id: `${TASK_PREFIX}${task.id}`,
        name: `task ${task.id}`,
        error: `task ${task.id} is not run: the run that scheduled it (${task.createdByRun}) could not be read: ${errorText(error)}`,
      });
    }
  }
  return found;
}

/**
 * `birdie serve`'s tasks: every user's active tasks scheduled through a server, each run in a new session of its user,
 * in the workspace of the session that scheduled it (the user's, or that session's own with `serve.workspace:
 * session`), under the server's policy and approval mode; nothing there approves, so only pre-approved calls run. Every
 * worker of one database runs this loop: a due time runs once (the scheduler's lease and claim, as for `birdie start`).
 */
export async function startServerTasks(
  setup: Pick<ServeSetup, 'rt' | 'approval' | 'workspaces'>,
  options: UnattendedOptions,
): Promise<UnattendedLoop> {
  const { rt, approval } = setup;
  const origins = new TaskOrigins(rt.store);
  const workspaces = new Workspaces(setup.workspaces);
  const operator = operatorPolicy(rt.config.settings);
  // A database that does not answer must not stop the server (its requests say so themselves): the tasks known stay
  // scheduled, the failure is logged once, and the next poll tries again.
  let known: ScheduledTask[] = [];
  let failing = false;
  const unreadable = new Set<number>();
  // The held tasks said (a `notice` each), so that a hold is said once, and again only after it was lifted.
  const saidHeld = new Set<number>();
  return startUnattended(rt, options, {
    agents: false,
    everyUser: true,
    // `serve.agents` holds for a task as for a session: one naming an agent the operator took away is held, not run.
    agentRefusal: (agent) => operator.agentRefusal(agent),
    async tasks() {
      try {
        const active = await rt.store.tasks.listActive();
        const found = await originsOf(origins, active, unreadable, options.onEvent);
        const servers = found.filter((f) => f.session !== undefined).map((f) => f.task);
        // A task of a revoked user already refused once is held: left out, so that it is not fired (see held-tasks).
        const held = await heldTasks(rt.store, servers);
        for (const id of saidHeld) if (!held.has(id)) saidHeld.delete(id);
        for (const [id, why] of held) {
          if (saidHeld.has(id)) continue;
          saidHeld.add(id);
          options.onEvent({ type: 'notice', name: `task ${id}`, message: `task ${id} is held: ${why}` });
        }
        known = servers.filter((t) => !held.has(t.id));
        failing = false;
      } catch (error) {
        if (!failing)
          options.onEvent({
            type: 'error',
            error: `scheduled tasks could not be read: ${errorText(error)}`,
          });
        failing = true;
      }
      return known;
    },
    async placeOf(task) {
      // A user whose every API token was revoked no longer acts on the server, tasks included: the firing is logged
      // `rejected` and nothing runs (asked at each firing: a revocation holds from the next one, a new token lifts it);
      // the task is then held, not fired again, while the user stays revoked.
      // A user who never had a token (a chat channel's, the local one) is not refused: only a revocation says so.
      if ((await rt.store.tokens.standing(task.userId)) === 'revoked') {
        // Refused once since the revocation (by this worker or another, before the tasks were read again): held, so
        // this firing is neither run nor logged again.
        const held = (await heldTasks(rt.store, [task])).get(task.id);
        if (held !== undefined) return { held };
        // The workspace is not made: the run is refused before any tool could work in it.
        return { cwd: rt.cwd, approval, refusal: revokedRefusal(task) };
      }
      // Held before it is due (`agentRefusal`); a one-time task naming such an agent fails here, once.
      // No agent: the default agent, which serve.agents does not restrict ('' as none, as agent-holds reads it).
      const refusal = task.agent ? operator.agentRefusal(task.agent) : undefined;
      if (refusal) throw new Error(`task ${task.id}: ${refusal}`);
      const id = (await origins.serverSession(task)) ?? '';
      // Made if needed; a user over the workspace quota gets a failed run, as their turns are refused.
      const cwd = await workspaces.admit({ id, userId: task.userId });
      return { cwd, approval };
    },
  });
}

/** Why a task of a user whose every API token was revoked is not run, and how to end that. */
function revokedRefusal(task: ScheduledTask): string {
  return `refused: every API token of ${task.userId} was revoked, and birdie serve runs no task of a user whose access was revoked; give them a token again (birdie tokens create --user ${task.userId}) or cancel the task (birdie tasks cancel ${task.id} --user ${task.userId})`;
}

/**
 * `birdie start`'s tasks: the runtime's user's active tasks but those scheduled through a server, which the server
 * runs; each of those is said once (a `notice` event), so the operator knows why it is not run here.
 */
export function ownTasks(
  rt: Pick<Runtime, 'store' | 'userId'>,
  onEvent: UnattendedOptions['onEvent'],
): UnattendedSource {
  const origins = new TaskOrigins(rt.store);
  const told = new Set<number>();
  const unreadable = new Set<number>();
  return {
    agents: true,
    async tasks() {
      const own: ScheduledTask[] = [];
      const tasks = await rt.store.tasks.list(rt.userId);
      for (const { task, session } of await originsOf(origins, tasks, unreadable, onEvent)) {
        if (session === undefined) own.push(task);
        else if (!told.has(task.id)) {
          told.add(task.id);
          onEvent({
            type: 'notice',
            name: `task ${task.id}`,
            message: `task ${task.id} was scheduled through birdie serve (session ${session}): the server runs it, in ${task.userId}'s workspace under its policy; birdie start leaves it`,
          });
        }
      }
      return own;
    },
  };
}
