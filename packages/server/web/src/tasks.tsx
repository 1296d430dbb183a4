import type { Api } from './api.js';
import { useLoad } from './use-load.js';

/** The user's scheduled tasks (the scheduler skill's `schedule_task`), with cancel. */
export function Tasks({ api }: { api: Api }) {
  const { data, error, reload } = useLoad(() => api.tasks(), [api]);
  const tasks = data?.tasks ?? [];
  return (
    <main id="main" tabIndex={-1} class="tasks">
      <h1>Scheduled tasks</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {data && tasks.length === 0 && <p class="hint">No scheduled tasks.</p>}
      <ul>
        {tasks.map((t) => {
          const id = String(t.id);
          return (
            <li key={id} class="row">
              <span class="title">{String(t.prompt ?? t.name ?? `Task ${id}`)}</span>
              <span class="meta">
                {String(t.schedule ?? t.every ?? t.at ?? '')} {t.status ? `· ${String(t.status)}` : ''}
              </span>
              {t.status !== 'cancelled' && t.status !== 'done' && (
                <button type="button" class="quiet" onClick={() => api.cancelTask(id).then(reload, reload)}>
                  Cancel task {id}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </main>
  );
}
