import { useCallback, useMemo, useState } from 'preact/hooks';
import { Api } from './api.js';
import { Chat } from './chat.js';
import { NewSession } from './new-session.js';
import { useRoute } from './route.js';
import { Runs } from './runs.js';
import { SessionList } from './session-list.js';
import { SkillsPanel } from './skills-panel.js';
import { Tasks } from './tasks.js';

/** Everything after sign-in (its own chunk: the sign-in screen loads without the chat's Markdown and highlighting). */
export function Shell({ token, onSignOut }: { token: string; onSignOut(reason?: string): void }) {
  // A 401 on any call (the token was revoked, or the server no longer knows it) signs out: nothing works with it.
  const api = useMemo(
    () =>
      new Api(token, () =>
        onSignOut(
          'You were signed out: your token is no longer valid (it may have been revoked). Sign in with a valid one.',
        ),
      ),
    [token, onSignOut],
  );
  const route = useRoute();
  // Bumped when a session is made, renamed or deleted, or a turn ends: the list reloads.
  const [version, setVersion] = useState(0);
  const changed = useCallback(() => setVersion((v) => v + 1), []);
  const current = route.name === 'sessions' ? route.session : undefined;
  return (
    <div class="shell">
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">birdie</span>
        <nav aria-label="Sections">
          <a href="#/" aria-current={route.name === 'sessions' || route.name === 'new' ? 'page' : undefined}>
            Chats
          </a>
          <a href="#/runs" aria-current={route.name === 'runs' ? 'page' : undefined}>
            Runs
          </a>
          <a href="#/tasks" aria-current={route.name === 'tasks' ? 'page' : undefined}>
            Tasks
          </a>
        </nav>
        <button type="button" class="quiet" onClick={() => onSignOut()}>
          Sign out
        </button>
      </header>
      {route.name === 'runs' ? (
        <Runs api={api} run={route.run} />
      ) : route.name === 'tasks' ? (
        <Tasks api={api} />
      ) : (
        <div class={`split ${current || route.name === 'new' ? 'has-main' : ''}`}>
          <SessionList api={api} current={current} version={version} onChanged={changed} />
          {route.name === 'new' ? (
            <NewSession api={api} onCreated={changed} />
          ) : current && route.name === 'sessions' && route.panel === 'skills' ? (
            <SkillsPanel api={api} session={current} />
          ) : current ? (
            <Chat key={current} api={api} session={current} onChanged={changed} />
          ) : (
            <main id="main" tabIndex={-1} class="empty">
              <h1>Chats</h1>
              <p>
                Pick a chat, or <a href="#/new">start a new one</a>.
              </p>
            </main>
          )}
        </div>
      )}
    </div>
  );
}
