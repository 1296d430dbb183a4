import { findSession } from '@birdie/runtime/runtime';
import { removeSession } from '@birdie/runtime/session-admin';
import { createSession } from '@birdie/runtime/session-start';
import { oneLine } from '@birdie/runtime/session-titles';
import { plural } from '@birdie/terminal/diagnostics';
import { table } from '@birdie/terminal/style';
import { closest } from '../suggest.js';
import { showRecent } from './history-view.js';
import { out, type ReplState, switchTo } from './state.js';

function warn(state: ReplState, line: string): void {
  out(state, `${state.style('yellow', 'birdie:')} ${line}`);
}

/** `/session new | switch ID | delete ID | rename TITLE | list | info` (and `/new`). */
export async function session(state: ReplState, rest: string[]): Promise<undefined> {
  const { rt, style } = state;
  const sub = rest[0] ?? 'info';
  switch (sub) {
    case 'new': {
      // A new session starts with the skills of the settings, as at start.
      const next = await createSession(rt, { warn: (line) => warn(state, line) });
      await switchTo(state, next);
      return out(state, `${style('green', '✓')} new session ${state.session.id}`);
    }
    case 'switch': {
      if (!rest[1]) return out(state, 'Usage: /session switch ID');
      const target = await findSession(rt.store, rest[1], rt.userId, 'repl');
      await switchTo(state, target);
      out(state, `${style('green', '✓')} switched to ${target.id}`);
      await showRecent(state);
      return undefined;
    }
    case 'delete': {
      if (!rest[1]) return out(state, 'Usage: /session delete ID');
      const target = await findSession(rt.store, rest[1], rt.userId, 'repl');
      // The current one: the REPL goes on in a new session (with the settings' skills, as /new), then deletes it.
      const current = target.id === state.session.id;
      if (current) await switchTo(state, await createSession(rt, { warn: (line) => warn(state, line) }));
      // Switching away discards an empty session by itself: it may be gone already.
      await removeSession(rt.store, state.io.env, target.id, rt.userId);
      return out(
        state,
        `${style('green', '✓')} deleted ${target.id}${current ? `; new session ${state.session.id}` : ''}`,
      );
    }
    case 'rename': {
      const title = oneLine(rest.slice(1).join(' '), 200);
      if (!title) return out(state, 'Usage: /session rename TITLE');
      await rt.store.sessions.rename(state.session.id, rt.userId, title);
      state.session.title = title;
      return out(state, `${style('green', '✓')} renamed ${state.session.id}: ${title}`);
    }
    case 'list': {
      const sessions = await rt.store.sessions.list(rt.userId);
      return out(
        state,
        table(
          sessions.map((x) => [
            x.id === state.session.id ? '*' : ' ',
            x.id,
            x.updatedAt.toISOString().slice(0, 16).replace('T', ' '),
            plural(x.turns, 'turn'),
            `↑${x.inputTokens} ↓${x.outputTokens}`,
            x.title ?? '',
          ]),
        ),
      );
    }
    case 'info': {
      const x = (await rt.store.sessions.get(state.session.id, rt.userId)) ?? state.session;
      out(
        state,
        `session ${x.id} · user ${x.userId} · ${plural(x.turns, 'turn')} · ↑${x.inputTokens} ↓${x.outputTokens} tok · created ${x.createdAt.toISOString().slice(0, 16).replace('T', ' ')}${x.title ? ` · ${x.title}` : ''}`,
      );
      // Tools approved for the rest of the session (kept in its thread, bound to their skill files).
      const approvals =
        (await rt.agent.getState(x.id, { recent: true }).catch(() => undefined))?.sessionApprovals ?? [];
      if (approvals.length > 0)
        out(
          state,
          `approved for this session: ${approvals.map((a) => (a.skill ? `${a.tool} (${a.skill})` : a.tool)).join(', ')}`,
        );
      return undefined;
    }
    default: {
      const near = closest(sub, ['new', 'switch', 'delete', 'rename', 'list', 'info'], 1);
      return out(
        state,
        `Usage: /session new | switch ID | delete ID | rename TITLE | list | info.${near.length ? ` Did you mean "${near[0]}"?` : ''}`,
      );
    }
  }
}
