import type { ScheduledTask, Store } from '@birdie/store';

// Whose scheduler a task is: a task the model schedules from a session of a server (`birdie serve`'s API, its chat
// channels, `birdie mcp --http`) is the server's, fired in its user's workspace; any other is `birdie start`'s.

/**
 * The server session each task was scheduled from: a session numbered among its user's own (`USER~…`, the servers'
 * numbering). Tasks keep it; one scheduled before they did is found through the run that scheduled it, once.
 */
export class TaskOrigins {
  private readonly known = new Map<number, string | undefined>();

  constructor(private readonly store: Pick<Store, 'runs'>) {}

  /** The server session `task` was scheduled from; undefined for one scheduled elsewhere (`birdie run`, the REPL). */
  async serverSession(task: ScheduledTask): Promise<string | undefined> {
    // Tasks keep their session (even once it is deleted); those scheduled before that are known by their run.
    if (task.originSession !== undefined) return serverNumbered(task.originSession);
    if (task.createdByRun === undefined) return undefined;
    if (this.known.has(task.id)) return this.known.get(task.id);
    const run = await this.store.runs.get(task.createdByRun, task.userId);
    const session = run ? serverNumbered(run.sessionId) : undefined;
    this.known.set(task.id, session);
    return session;
  }
}

/** `~` is in no user id and in no session id but a server's per-user numbered one. */
const serverNumbered = (sessionId: string) => (sessionId.includes('~') ? sessionId : undefined);
