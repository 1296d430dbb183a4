import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiFailure, type StreamHandlers } from './api.js';
import { Approvals } from './approval.js';
import { applyEvent, type ChatState, emptyChat, itemsOfHistory, untilLastPrompt } from './chat-state.js';
import { ItemView } from './items.js';
import { hrefOf } from './route.js';
import type { ApprovalDecision, ApprovalRequest, SessionDetail, TurnEvent } from './types.js';

/** How often an idle chat looks for a turn another tab (or client) started on the session. */
const WATCH_MS = 3000;
/** A stream cut before the turn's end is followed again from its last event id, this many times. */
const REATTACH_TRIES = 5;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isEnd = (e: TurnEvent) => e.type === 'result' || e.type === 'approval-request';

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

  const update = useCallback((f: (s: ChatState) => ChatState) => {
    setChat((s) => {
      const next = f(s);
      latest.current = next;
      return next;
    });
  }, []);

  /** Runs one stream of the turn into the chat; a cut stream reattaches with `Last-Event-ID` (`GET …/events`). */
  const stream = useCallback(
    async (start: (h: StreamHandlers) => Promise<void>) => {
      const signal = gone.current.signal;
      let ended = false;
      const handlers: StreamHandlers = {
        signal,
        onId: (id) => update((s) => ({ ...s, lastId: id })),
        onEvent: (event) => {
          if (isEnd(event)) ended = true;
          update((s) => applyEvent(s, event, Date.now()));
        },
      };
      update((s) => ({ ...s, running: true, status: 'running', pending: [] }));
      try {
        await start(handlers);
        for (let tries = 0; !ended && !signal.aborted && tries < REATTACH_TRIES; tries++)
          await api.follow(session, latest.current.lastId, handlers);
      } catch (failure) {
        if (!signal.aborted) {
          setError(errorText(failure));
          throw failure;
        }
      } finally {
        if (!signal.aborted) {
          update((s) => ({ ...s, running: false }));
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
      const next = emptyChat();
      next.items = itemsOfHistory(live ? untilLastPrompt(d.messages) : d.messages);
      next.pending = live ? [] : d.pendingApprovals;
      if (next.pending.length) next.status = 'waiting for approval';
      update(() => next);
      if (live) await stream((h) => api.follow(session, undefined, h));
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
