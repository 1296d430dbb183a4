import { titleProblem } from '@birdie/store/title';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, shownFailure } from './api.js';
import { refocusIn } from './focus.js';
import { hrefOf } from './route.js';
import type { Session } from './types.js';
import { useLoad } from './use-load.js';

const titleOf = (s: Session) => s.title || s.id;

/** The user's sessions: search, open, rename, delete. Titles are untrusted text: rendered as text only. */
export function SessionList(props: { api: Api; current?: string; version: number; onChanged(): void }) {
  const { api, current, version, onChanged } = props;
  const [query, setQuery] = useState('');
  const { data, error } = useLoad(() => api.sessions(query.trim() || undefined), [api, version, query]);
  const needle = query.trim().toLowerCase();
  // The server searches (`?q=`); the same filter here keeps the list right while an answer is on its way.
  const sessions = (data?.sessions ?? []).filter(
    (s) => !needle || titleOf(s).toLowerCase().includes(needle) || s.id.toLowerCase().includes(needle),
  );
  return (
    <aside class="sessions" aria-label="Chats">
      <a class="button new" href="#/new">
        New chat
      </a>
      <label for="session-search" class="sr-only">
        Search chats
      </label>
      <input
        id="session-search"
        type="search"
        placeholder="Search chats"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul>
        {sessions.map((s) => (
          <SessionRow key={s.id} api={api} session={s} current={s.id === current} onChanged={onChanged} />
        ))}
      </ul>
      {data && sessions.length === 0 && <p class="hint">{needle ? 'No chat matches.' : 'No chats yet.'}</p>}
    </aside>
  );
}

function SessionRow(props: { api: Api; session: Session; current: boolean; onChanged(): void }) {
  const { api, session, current, onChanged } = props;
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [title, setTitle] = useState(titleOf(session));
  const [error, setError] = useState<string>();
  // A mode can replace the control that chose it (Rename's Save and Cancel go with their form): a focus that fell
  // with it goes to the new mode's control — the chat's link once back, Keep (never the delete itself) — not to the
  // top of the page.
  const row = useRef<HTMLLIElement>(null);
  const shownMode = useRef(mode);
  useEffect(() => {
    if (shownMode.current === mode) return;
    shownMode.current = mode;
    refocusIn(row.current, mode === 'delete' ? 'button.quiet' : mode === 'view' ? 'a.title' : 'input');
  }, [mode]);
  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      setMode('view');
      onChanged();
    } catch (e) {
      setError(shownFailure(e));
    }
  };
  // Escape leaves Rename or Delete as Cancel and Keep do.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || mode === 'view') return;
    e.preventDefault();
    setError(undefined);
    setMode('view');
  };
  if (mode === 'rename')
    return (
      <li class="row" ref={row} onKeyDown={onKeyDown}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            // Counted as the server counts it (code points): an input's maxLength counts UTF-16 units.
            const problem = title.trim() ? titleProblem(title.trim()) : 'a session title is not blank';
            if (problem) setError(problem);
            else void act(() => api.renameSession(session.id, title.trim()));
          }}
        >
          <label for={`title-${session.id}`} class="sr-only">
            New title
          </label>
          <input
            id={`title-${session.id}`}
            value={title}
            required
            onInput={(e) => setTitle(e.currentTarget.value)}
            ref={(el) => el?.focus()}
          />
          <button type="submit">Save</button>
          <button type="button" class="quiet" onClick={() => setMode('view')}>
            Cancel
          </button>
        </form>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </li>
    );
  return (
    <li class={`row ${current ? 'current' : ''}`} ref={row} onKeyDown={onKeyDown}>
      <a href={hrefOf.session(session.id)} aria-current={current ? 'page' : undefined} class="title">
        {titleOf(session)}
      </a>
      <span class="meta">{new Date(session.updatedAt).toLocaleString()}</span>
      {mode === 'delete' ? (
        <span class="actions">
          <button
            type="button"
            class="danger"
            onClick={() =>
              act(async () => {
                // The row goes with the chat: the focus goes to a neighbouring chat (else the search box), not the page.
                const neighbour =
                  row.current?.nextElementSibling ?? row.current?.previousElementSibling ?? undefined;
                await api.deleteSession(session.id);
                if (current) location.hash = '#/';
                (
                  neighbour?.querySelector<HTMLElement>('a.title') ??
                  document.getElementById('session-search')
                )?.focus();
              })
            }
          >
            Delete “{titleOf(session)}”
          </button>
          <button type="button" class="quiet" onClick={() => setMode('view')}>
            Keep
          </button>
        </span>
      ) : (
        <span class="actions">
          <button
            type="button"
            class="quiet"
            onClick={() => setMode('rename')}
            aria-label={`Rename ${titleOf(session)}`}
          >
            Rename
          </button>
          <button
            type="button"
            class="quiet"
            onClick={() => setMode('delete')}
            aria-label={`Delete ${titleOf(session)}`}
          >
            Delete
          </button>
        </span>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}
