import { useState } from 'preact/hooks';
import type { Api } from './api.js';
import { hrefOf } from './route.js';
import { shown } from './shown.js';
import type { Run } from './types.js';
import { useLoad } from './use-load.js';

const STATUSES = ['running', 'ok', 'error', 'interrupted', 'rejected', 'cancelled', 'died'];
const SINCE: Record<string, number> = { hour: 3600e3, day: 86400e3, week: 7 * 86400e3 };

/** The user's run log: filters (status, agent, time) and one run's detail. */
export function Runs({ api, run }: { api: Api; run?: number }) {
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const [since, setSince] = useState('');
  // The server filters (`status`, `agent`, `since`); the time filter is a window back from now.
  const { data, error } = useLoad(
    () =>
      api.runs({
        limit: '200',
        ...(status ? { status } : {}),
        ...(agent.trim() ? { agent: agent.trim() } : {}),
        ...(since ? { since: new Date(Date.now() - SINCE[since]!).toISOString() } : {}),
      }),
    [api, status, agent, since],
  );
  const runs = data?.runs ?? [];
  return (
    <main id="main" tabIndex={-1} class="runs">
      <h1>Runs</h1>
      {run !== undefined ? (
        <RunDetail api={api} id={run} fallback={data?.runs.find((r) => r.id === run)} />
      ) : (
        <>
          <form class="filters" onSubmit={(e) => e.preventDefault()}>
            <label>
              Status{' '}
              <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
                <option value="">any</option>
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </label>
            <label>
              Agent <input value={agent} onInput={(e) => setAgent(e.currentTarget.value)} />
            </label>
            <label>
              Started{' '}
              <select value={since} onChange={(e) => setSince(e.currentTarget.value)}>
                <option value="">any time</option>
                <option value="hour">last hour</option>
                <option value="day">last day</option>
                <option value="week">last week</option>
              </select>
            </label>
          </form>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Chat</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Started</th>
                  <th scope="col">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <a href={hrefOf.run(r.id)}>#{r.id}</a>
                    </td>
                    <td>{r.status}</td>
                    <td>
                      <a href={hrefOf.session(r.sessionId)}>{r.sessionId}</a>
                    </td>
                    <td>{r.agent?.name ?? r.trigger ?? ''}</td>
                    <td>{new Date(r.startedAt).toLocaleString()}</td>
                    <td>
                      {r.inputTokens} / {r.outputTokens}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {data && runs.length === 0 && <p class="hint">No run matches.</p>}
        </>
      )}
    </main>
  );
}

function RunDetail({ api, id, fallback }: { api: Api; id: number; fallback?: Run }) {
  // `GET /v1/runs/{id}`; an older server without it: the run from the list.
  const { data, error } = useLoad(() => api.run(id), [api, id]);
  const run = data ?? fallback;
  if (!run)
    return error ? (
      <p role="alert" class="error">
        {error}
      </p>
    ) : (
      <p>Loading…</p>
    );
  return (
    <article class="run-detail" aria-labelledby="run-title">
      <h2 id="run-title">Run #{run.id}</h2>
      <p>
        <a href="#/runs">All runs</a>
      </p>
      <dl>
        <dt>Status</dt>
        <dd>{run.status}</dd>
        <dt>Chat</dt>
        <dd>
          <a href={hrefOf.session(run.sessionId)}>{run.sessionId}</a>
        </dd>
        {run.agent && (
          <>
            <dt>Agent</dt>
            <dd>{run.agent.name}</dd>
          </>
        )}
        <dt>Started</dt>
        <dd>{new Date(run.startedAt).toLocaleString()}</dd>
        {run.durationMs !== undefined && (
          <>
            <dt>Duration</dt>
            <dd>{(run.durationMs / 1000).toFixed(1)} s</dd>
          </>
        )}
      </dl>
      <h3>Tokens per model</h3>
      <ul>
        {run.usage.map((u) => (
          <li key={u.model}>
            {u.model}: {u.inputTokens} in, {u.outputTokens} out
          </li>
        ))}
      </ul>
      <h3>Tools</h3>
      {run.toolCalls.length === 0 ? (
        <p class="hint">No tool calls.</p>
      ) : (
        <ul>
          {run.toolCalls.map((t) => (
            <li key={t.id}>
              <code>{shown(t.name)}</code> {t.status}
              {t.durationMs !== undefined ? ` in ${t.durationMs} ms` : ''}
              {t.error ? ` — ${t.error}` : ''}
            </li>
          ))}
        </ul>
      )}
      {run.answer && (
        <>
          <h3>Answer</h3>
          <pre class="output">{run.answer}</pre>
        </>
      )}
      {run.error && (
        <>
          <h3>Error</h3>
          <pre class="output">{run.error}</pre>
        </>
      )}
    </article>
  );
}
