/**
 * The work of one MCP connection, counted so that what the connection holds outside itself (the host's listener, the
 * host's copy of its session's grants) is let go once: after the connection has ended (its transport closed: DELETE,
 * the idle timeout, the end of stdio) and its last piece of work is done, since a request still running then (one
 * making the session, say) would read that state back into the host.
 */
export interface ConnectionWork {
  /** Runs `work`, counted as the connection's until it settles. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** The connection ended: `release` runs now, or once the last work settles. */
  end(): void;
  /** Whether the connection has ended (nobody is left to tell of a change). */
  readonly ended: boolean;
  /** Whether a piece of work runs (a session is not idle while one does, however long a call waits for approval). */
  readonly busy: boolean;
}

export function connectionWork(release: () => void): ConnectionWork {
  let ended = false;
  let released = false;
  let working = 0;
  const settle = () => {
    if (!ended || working > 0 || released) return;
    released = true;
    release();
  };
  return {
    async track(work) {
      working += 1;
      try {
        return await work();
      } finally {
        working -= 1;
        settle();
      }
    },
    end() {
      ended = true;
      settle();
    },
    get ended() {
      return ended;
    },
    get busy() {
      return working > 0;
    },
  };
}

/** How long a stopped server waits for the calls it aborted to record their end (`settledWithin`). */
export const MCP_STOP_GRACE_MS = 10_000;

/**
 * Waits, at most `graceMs`, for stopped connections to settle (`BirdieMcpServer.settled`): a call the stop aborted
 * then has written its run's end (`cancelled`) before the caller closes the host's store. Bounded, so a call that does
 * not stop cannot hold the exit (its run is then reaped as `died`). Used by both transports (stdio, `--http`).
 */
export async function settledWithin(
  settled: readonly Promise<void>[],
  graceMs: number = MCP_STOP_GRACE_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(settled),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    }),
  ]);
  clearTimeout(timer);
}
