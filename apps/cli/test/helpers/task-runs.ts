import { openStore, type RunRecord } from '@birdie/store';

/** The logged runs of scheduled task `task` of `userId` in the store under `home`, oldest first. */
export async function taskRuns(home: string, userId: string, task: number): Promise<RunRecord[]> {
  const store = openStore({ home });
  try {
    const runs = await store.runs.list({ userId, limit: 1000 });
    // The run log names a task's runs `task N (every 1s)`.
    return runs.filter((r) => r.trigger?.startsWith(`task ${task} `)).reverse();
  } finally {
    store.close();
  }
}
