import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiFailure, type StreamHandlers } from './api.js';
import { Approvals } from './approval.js';
import { applyEvent, type ChatState, emptyChat, itemsOfHistory, untilLastPrompt } from './chat-state.js';
import { focusLost } from './focus.js';
import { ItemView } from './items.js';
import { hrefOf } from './route.js';
import type { ApprovalDecision, ApprovalRequest, SessionDetail, TurnEvent } from './types.js';

/** How often an idle chat looks for a turn another tab (or client) started on the session. */
const WATCH_MS = 3000;
/** A stream cut before the turn's end is followed again from its last event id, this many times… */
const REATTACH_TRIES = 8;
/** …the first after this long, each next after twice as long (at most 16 times as long): 40 s in all. */
const REATTACH_WAIT_MS = 500;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isEnd = (e: TurnEvent) => e.type === 'result' || e.type === 'approval-request';

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Whether the session's newest turn still runs (its newest top-level run, from the run log). */
async function turnRunning(api: Api, session: string): Promise<boolean> {
  const { runs } = await api.runs({ session, limit: '10' });
  return runs.find((r) => r.parentRunId === undefined)?.status === 'running';
}

/** Whether none of the approvals shown here is pending any more (answered in another tab or on another device). */
async function answeredElsewhere(api: Api, session: string, shown: ApprovalRequest[]): Promise<boolean> {
  const { pendingApprovals } = await api.session(session);
  return !shown.some((request) => pendingApprovals.some((p) => p.id === request.id));
}

export function Chat({ api, session, onChanged }: { api: Api; session: string; onChanged(): void }) {
  const [chat, setChat] = useState<ChatState>(emptyChat);
  const [detail, setDetail] = useState<SessionDetail>();
  const [error, setError] = useState<string>();
  const [draft, setDraft] = useState('');
  const [opened, setOpened] = useState(0);
  // The latest state for the async code below (a stream outlives many renders).
  const latest = useRef(chat);
  latest.current = chat;
  const gone = useRef(new AbortController());
  const log = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLTextAreaElement>(null);

  const update = useCallback((f: (s: ChatState) => ChatState) => {
    setChat((s) => {
      const next = f(s);
      latest.current = next;
      return next;
    });
  }, []);

  /**
   * Runs one stream of a turn into the chat. A stream cut before the turn's end (the worker stopped, the network
   * dropped) follows the turn again from its last recorded event (`GET …/events` with `Last-Event-ID`), waiting longer
   * between tries, so a worker that comes back — or the server ending the turn as lost — is seen here. `quiet`: a
   * replay of a turn that may have ended long ago; the chat says a turn runs only once one of its events comes.
   * Rejects with the API's refusal (`ApiFailure`: nothing of a new turn ran, or the session is gone).
   */
  const stream = useCallback(
    async (start: (h: StreamHandlers) => Promise<void>, { quiet = false } = {}) => {
      const signal = gone.current.signal;
      const before = latest.current.status;
      let ended = false;
      let received = false;
      let cut: unknown;
      if (!quiet) update((s) => ({ ...s, running: true, status: 'running', pending: [] }));
      // What the chat showed at the last recorded event: a reattach from its id sends all that came after again
      // (tokens as recorded, coalesced), so that part is dropped before and shown once.
      let recorded = latest.current;
      const handlers: StreamHandlers = {
        signal,
        onId: (id) =>
          update((s) => {
            recorded = { ...s, lastId: id };
            return recorded;
          }),
        onEvent: (event) => {
          received = true;
          if (isEnd(event)) ended = true;
          update((s) =>
            applyEvent(s.running ? s : { ...s, running: true, status: 'running' }, event, Date.now()),
          );
        },
      };
      try {
        for (let tries = 0; ; tries++) {
          try {
            if (tries === 0) await start(handlers);
            else await api.follow(session, recorded.lastId, handlers);
            cut = undefined;
          } catch (failure) {
            if (signal.aborted) return;
            if (failure instanceof ApiFailure) throw failure;
            cut = failure;
          }
          if (ended || signal.aborted) return;
          // Cut before anything of a turn came, and none known here: there is no turn to follow.
          if (!received && recorded.lastId === undefined) break;
          if (tries >= REATTACH_TRIES) break;
          update(() => recorded);
          await pause(REATTACH_WAIT_MS * 2 ** Math.min(tries, 4), signal);
          if (signal.aborted) return;
        }
        if (cut)
          setError(
            `The connection to the server was lost (${errorText(cut)}). Reload to see how the turn ended.`,
          );
      } catch (failure) {
        if (!signal.aborted) {
          setError(errorText(failure));
          throw failure;
        }
      } finally {
        if (!signal.aborted && (received || !quiet)) {
          // A turn whose end never came is not said to run: how this stream ended is what is known.
          const end = cut ? 'connection lost' : received ? 'ended' : before;
          update((s) => ({ ...s, running: false, status: s.status === 'running' ? end : s.status }));
          onChanged();
          // The session's totals now hold this turn's usage.
          api.session(session).then(
            (d) => {
              setDetail(d);
              update((s) => ({
                ...s,
                usage: {
                  inputTokens: 0,
                  outputTokens: 0,
                  ...(s.usage.context ? { context: s.usage.context } : {}),
                },
              }));
            },
            () => {},
          );
        }
      }
    },
    [api, session, update, onChanged],
  );

  // Open the session: its history, and the turn that runs on it now, if any (reload, another tab, another device).
  useEffect(() => {
    gone.current = new AbortController();
    const signal = gone.current.signal;
    (async () => {
      const [d, live] = await Promise.all([api.session(session), turnRunning(api, session)]);
      if (signal.aborted) return;
      setDetail(d);
      setError(undefined);
      // A prompt the history leaves unanswered, with nothing running or waiting: its turn failed before an answer
      // was saved (its worker died, the model failed). The turn's recorded events say how (the partial answer, the
      // error, its end); replayed, the chat shows what it showed live.
      const unanswered = !live && d.pendingApprovals.length === 0 && d.messages.at(-1)?.role === 'human';
      const next = emptyChat();
      next.items = itemsOfHistory(live ? untilLastPrompt(d.messages) : d.messages);
      next.pending = live ? [] : d.pendingApprovals;
      if (next.pending.length) next.status = 'waiting for approval';
      update(() => next);
      if (live) await stream((h) => api.follow(session, undefined, h));
      else if (unanswered) await stream((h) => api.follow(session, undefined, h), { quiet: true });
    })().catch((failure: unknown) => {
      if (!signal.aborted)
        setError(
          failure instanceof ApiFailure && failure.status === 404 ? 'No such chat.' : errorText(failure),
        );
    });
    return () => gone.current.abort();
  }, [api, session, opened]);

  // While idle, notice a turn started elsewhere and follow it.
  useEffect(() => {
    if (chat.running) return;
    const timer = setInterval(() => {
      turnRunning(api, session).then(
        (live) => live && !latest.current.running && setOpened((n) => n + 1),
        () => {},
      );
      // An approval shown here may have been answered elsewhere: then it is no longer pending, show what happened.
      if (latest.current.pending.length)
        answeredElsewhere(api, session, latest.current.pending).then(
          (answered) => answered && !latest.current.running && setOpened((n) => n + 1),
          () => {},
        );
    }, WATCH_MS);
    return () => clearInterval(timer);
  }, [api, session, chat.running]);

  // The message box takes a focus that fell to the page: a chat just started (the New chat form went with its
  // button), or an approval answered (its card went, and the box it had disabled is back).
  useEffect(() => {
    if (chat.pending.length === 0 && focusLost()) box.current?.focus();
  }, [chat.pending.length]);

  // Keep the newest text in view while the reader is at the bottom.
  useLayoutEffect(() => {
    const el = log.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 120) el.scrollTop = el.scrollHeight;
  }, [chat.items]);

  const send = (e: Event) => {
    e.preventDefault();
    const prompt = draft.trim();
    if (!prompt || chat.running) return;
    setDraft('');
    setError(undefined);
    const key = `u${chat.seq}`;
    const status = chat.status;
    update((s) => ({
      ...s,
      items: [...s.items, { kind: 'user', key, text: prompt }],
      usage: { inputTokens: 0, outputTokens: 0, ...(s.usage.context ? { context: s.usage.context } : {}) },
      seq: s.seq + 1,
    }));
    stream((h) => api.turn(session, prompt, h)).catch((failure: unknown) => {
      // Refused before it started (the chat is busy in another tab, …): nothing was sent, so the message goes back
      // into the box to send again, and no turn of this tab is said to run.
      if (!(failure instanceof ApiFailure)) return;
      update((s) => ({ ...s, items: s.items.filter((item) => item.key !== key), status }));
      setDraft((d) => d || prompt);
    });
  };
  const decide = (decisions: Record<string, ApprovalDecision>) => {
    const pending = chat.pending;
    setError(undefined);
    stream((h) => api.approvals(session, decisions, h)).catch((failure: unknown) => {
      if (failure instanceof ApiFailure && failure.status === 409) {
        // Answered elsewhere (another tab, another device), or its turn runs there now: the session says what
        // happened to the calls; reopening it shows that (or follows the turn) instead of a card nobody can answer.
        setError(undefined);
        setOpened((n) => n + 1);
        return;
      }
      // Refused (e.g. arguments the server found invalid): the calls still wait.
      update((s) => ({ ...s, pending, status: 'waiting for approval' }));
    });
  };
  const cancel = () => {
    api.cancel(session).catch((failure: unknown) => setError(errorText(failure)));
  };

  const title = detail?.title || session;
  const totalIn = (detail?.inputTokens ?? 0) + chat.usage.inputTokens;
  const totalOut = (detail?.outputTokens ?? 0) + chat.usage.outputTokens;
  const context = chat.usage.context;
  return (
    <main id="main" tabIndex={-1} class="chat">
      <header class="chat-head">
        <h1>{title}</h1>
        <a href={hrefOf.skills(session)}>Skills</a>
      </header>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe: scrollable-region-focusable) */}
      <div class="log" ref={log} role="log" aria-label="Conversation" aria-busy={chat.running} tabIndex={0}>
        {chat.items.map((item) => (
          <ItemView key={item.key} item={item} />
        ))}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {chat.pending.length > 0 && <Approvals requests={chat.pending} busy={chat.running} onSend={decide} />}
      <form class="composer" onSubmit={send}>
        <label for="prompt" class="sr-only">
          Message
        </label>
        <textarea
          ref={box}
          id="prompt"
          rows={2}
          placeholder={
            chat.pending.length
              ? 'Answer the approval above first'
              : 'Message (Enter sends, Shift+Enter: new line)'
          }
          value={draft}
          disabled={chat.pending.length > 0}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e);
          }}
        />
        {chat.running ? (
          <button type="button" class="danger" onClick={cancel}>
            Cancel
          </button>
        ) : (
          <button type="submit" disabled={!draft.trim() || chat.pending.length > 0}>
            Send
          </button>
        )}
      </form>
      <div class="status" role="status">
        <span class="turn-status">
          {chat.running ? 'Answering…' : chat.status ? `Last turn: ${chat.status}` : 'Ready'}
        </span>
        <span>
          Tokens: {totalIn.toLocaleString()} in · {totalOut.toLocaleString()} out
        </span>
        {context && (
          <span class="context">
            <label for="context-fill">Context</label>{' '}
            <meter id="context-fill" min={0} max={context.window} value={context.tokens}>
              {Math.round((100 * context.tokens) / context.window)}%
            </meter>{' '}
            {Math.round((100 * context.tokens) / context.window)}%
          </span>
        )}
      </div>
    </main>
  );
}
