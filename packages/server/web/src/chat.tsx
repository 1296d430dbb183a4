import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiFailure, type StreamHandlers, Unreachable } from './api.js';
import { Approvals } from './approval.js';
import {
  applyEvent,
  type ChatState,
  emptyChat,
  itemsOfHistory,
  mergeItems,
  untilLastPrompt,
} from './chat-state.js';
import { focusLost } from './focus.js';
import { ItemView } from './items.js';
import { replayBelongs, unfinished } from './replay.js';
import { hrefOf } from './route.js';
import type { ApprovalDecision, ApprovalRequest, Message, Run, SessionDetail, TurnEvent } from './types.js';

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

/** The session's newest turn in the run log (its newest top-level run, whichever front end ran it). */
async function newestRun(api: Api, session: string): Promise<Run | undefined> {
  const { runs } = await api.runs({ session, limit: '10' });
  return runs.find((r) => r.parentRunId === undefined);
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
  // The message being written, kept in this tab's storage until a turn takes it: a sign-out (a revoked token), a
  // reload or a crash of the page does not lose it.
  const draftKey = `birdie.draft.${session}`;
  const [draft, setDraftState] = useState(() => sessionStorage.getItem(draftKey) ?? '');
  const setDraft = useCallback(
    (next: string | ((d: string) => string)) =>
      setDraftState((d) => {
        const value = typeof next === 'function' ? next(d) : next;
        if (value) sessionStorage.setItem(draftKey, value);
        return value;
      }),
    [draftKey],
  );
  /** What the user typed: stored as it is, an emptied box included. */
  const typed = useCallback(
    (value: string) => {
      if (value) sessionStorage.setItem(draftKey, value);
      else sessionStorage.removeItem(draftKey);
      setDraftState(value);
    },
    [draftKey],
  );
  /** The draft `prompt` was sent and a turn took it: it is no longer kept (unless it was changed since). */
  const sent = useCallback(
    (prompt: string) => {
      if (sessionStorage.getItem(draftKey) === prompt) sessionStorage.removeItem(draftKey);
    },
    [draftKey],
  );
  const [opened, setOpened] = useState(0);
  // Until the history is shown and the replay of its last turn (if any) is in or dropped: the log is busy.
  const [opening, setOpening] = useState(true);
  // The session does not exist (or is another user's): nothing to write to.
  const [missing, setMissing] = useState(false);
  // The run of a turn another client (the CLI, a script) runs on the session now: no API turn of it to follow, the
  // chat says it is busy and its watch brings in what that turn saves.
  const [elsewhere, setElsewhere] = useState<number>();
  const elsewhereRun = useRef<number | undefined>(undefined);
  const busyElsewhere = useCallback((run: number | undefined) => {
    elsewhereRun.current = run;
    setElsewhere(run);
  }, []);
  // The history the chat shows (as read), so a watch that reads the same again changes nothing.
  const historyShown = useRef('');
  // The newest run the chat has taken in: a newer one the watch finds ended (a quick turn of another tab, one that
  // stopped for an approval) is read in, though it never saw it running.
  const seenRun = useRef<number | undefined>(undefined);
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
   * `after`: the history shown, whose last turn the stream replays (a reopened chat): its events take the place of
   * what the history shows after the last prompt once they show they are that prompt's turn (`replayBelongs`); a
   * turn the history went past (a later prompt from another front end) is not shown. A quiet replay is held until
   * then; a running turn is shown at once, and taken back if it turns out older. `eager` (with `quiet`): a turn the
   * run log says runs, which may be another client's — nothing is said until its first event, then it is shown at
   * once unless that event already says it is older (its prompt is an earlier one of the history).
   * Resolves to whether it showed a turn (nothing came, or the replay was not the last prompt's: `false`).
   * Rejects with the API's refusal (`ApiFailure`: nothing of a new turn ran, or the session is gone), or with
   * `Unreachable` when its first request got no answer at all.
   */
  const stream = useCallback(
    async (
      start: (h: StreamHandlers) => Promise<void>,
      {
        quiet = false,
        eager = false,
        after,
        errorFor = errorText,
      }: {
        quiet?: boolean;
        eager?: boolean;
        after?: Message[];
        /**
         * The error to show for a failure the stream gives up on (none: `undefined`). The caller's words, set here
         * once: set after this one by the caller, this one would be drawn for a moment first.
         */
        errorFor?: (failure: unknown) => string | undefined;
      } = {},
    ): Promise<boolean> => {
      // Ended when the chat closes, or when a replay turns out not to be the history's last turn.
      const dropped = new AbortController();
      const signal = AbortSignal.any([gone.current.signal, dropped.signal]);
      const initial = latest.current;
      const before = initial.status;
      let ended = false;
      let received = false;
      let cut: unknown;
      if (!quiet) update((s) => ({ ...s, running: true, status: 'running', pending: [] }));
      // What the chat showed at the last recorded event: a reattach from its id sends all that came after again
      // (tokens as recorded, coalesced), so that part is dropped before and shown once.
      let recorded = latest.current;
      const show = (event: TurnEvent) =>
        update((s) =>
          applyEvent(s.running ? s : { ...s, running: true, status: 'running' }, event, Date.now()),
        );
      const showId = (id: number) =>
        update((s) => {
          recorded = { ...s, lastId: id };
          return recorded;
        });
      // A replay's events until it is known to be the last prompt's turn (a quiet one's are held meanwhile).
      let judged = after === undefined;
      const replayed: TurnEvent[] = [];
      const held: Array<{ event: TurnEvent } | { id: number }> = [];
      let opened = false;
      const open = () => {
        opened = true;
        // What is shown of that history stays as it is (its nodes, the reader's place in them).
        update((s) => {
          recorded = { ...s, items: mergeItems(s.items, itemsOfHistory(untilLastPrompt(after ?? []))) };
          return recorded;
        });
        for (const h of held.splice(0)) 'id' in h ? showId(h.id) : show(h.event);
      };
      const judge = (streamEnded: boolean) => {
        const verdict = replayBelongs(after ?? [], replayed, streamEnded);
        if (verdict === undefined) return;
        judged = true;
        if (verdict) {
          if (!opened) open();
          return;
        }
        // Older than the history's last prompt: the history as it was shown, nothing of this turn.
        update(() => initial);
        dropped.abort();
      };
      const handlers: StreamHandlers = {
        signal,
        onId: (id) => {
          if (dropped.signal.aborted) return;
          if (judged || opened) showId(id);
          else held.push({ id });
        },
        onEvent: (event) => {
          // What the rest of a dropped replay's last read held.
          if (dropped.signal.aborted) return;
          received = true;
          if (isEnd(event)) ended = true;
          if (judged) return show(event);
          replayed.push(event);
          if (eager) {
            // Shown from its first event, unless that already says it is older.
            judge(false);
            if (dropped.signal.aborted) return;
            if (!opened) open();
            return show(event);
          }
          // A running turn is shown as it comes (the history's last turn, unless its events say otherwise).
          if (!quiet && !opened) open();
          if (opened) show(event);
          else held.push({ event });
          judge(false);
        },
      };
      const shown = () => received && !dropped.signal.aborted;
      try {
        for (let tries = 0; ; tries++) {
          try {
            if (tries === 0) await start(handlers);
            // A replay still held starts again from its first event: nothing of it is shown yet.
            else if (!judged && !opened) {
              replayed.length = 0;
              held.length = 0;
              await api.follow(session, undefined, handlers);
            } else await api.follow(session, recorded.lastId, handlers);
            cut = undefined;
            // The whole recorded turn came: it says whose it is.
            if (!judged) judge(true);
          } catch (failure) {
            if (signal.aborted) return shown();
            if (failure instanceof ApiFailure) throw failure;
            // The first request never got an answer: nothing of a new turn is known to have started.
            if (tries === 0 && failure instanceof Unreachable) throw failure;
            cut = failure;
          }
          if (ended || signal.aborted) return shown();
          // Cut before anything of a turn came, and none known here: there is no turn to follow.
          if (!received && recorded.lastId === undefined) break;
          if (tries >= REATTACH_TRIES) break;
          update(() => recorded);
          await pause(REATTACH_WAIT_MS * 2 ** Math.min(tries, 4), signal);
          if (signal.aborted) return shown();
        }
        if (cut)
          setError(
            `The connection to the server was lost (${errorText(cut)}). Reload to see how the turn ended.`,
          );
        return shown();
      } catch (failure) {
        if (!signal.aborted) {
          setError(errorFor(failure));
          throw failure;
        }
        return shown();
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
    setOpening(true);
    setMissing(false);
    (async () => {
      const [d, newest] = await Promise.all([api.session(session), newestRun(api, session)]);
      if (signal.aborted) return;
      seenRun.current = newest?.id;
      const live = newest?.status === 'running';
      setDetail(d);
      setError(undefined);
      // A turn the history leaves unfinished (it stops on a prompt or on tool steps), with nothing running or waiting,
      // or one the run log says failed or died: it ended before its answer was saved (its worker died, the model
      // failed). The newest API turn's recorded events say how (the partial answer, the error, its end); replayed,
      // the chat shows what it showed live — when that turn is the history's last (see `stream`'s `after`).
      const stopped =
        !live &&
        d.pendingApprovals.length === 0 &&
        (unfinished(d.messages) || newest?.status === 'died' || newest?.status === 'error');
      const next = emptyChat();
      next.items = itemsOfHistory(d.messages);
      historyShown.current = JSON.stringify(d.messages);
      next.pending = live ? [] : d.pendingApprovals;
      if (next.pending.length) next.status = 'waiting for approval';
      update(() => next);
      const follow = (h: StreamHandlers) => api.follow(session, undefined, h);
      let followed = false;
      if (live) followed = await stream(follow, { after: d.messages });
      else if (stopped) await stream(follow, { quiet: true, after: d.messages });
      // The run log says a turn runs, and no API turn of it came: another client runs it.
      if (!signal.aborted) busyElsewhere(live && !followed ? newest.id : undefined);
    })()
      .catch((failure: unknown) => {
        if (signal.aborted) return;
        const notFound = failure instanceof ApiFailure && failure.status === 404;
        setMissing(notFound);
        setError(notFound ? 'No such chat.' : errorText(failure));
      })
      .finally(() => {
        if (!signal.aborted) setOpening(false);
      });
    return () => gone.current.abort();
  }, [api, session, opened]);

  /**
   * Reads the session again and shows what changed in its history, leaving the rest as it is (`mergeItems`): what a
   * turn of another client saved since.
   */
  const refresh = useCallback(async (): Promise<SessionDetail> => {
    const d = await api.session(session);
    if (gone.current.signal.aborted) return d;
    setDetail(d);
    const read = JSON.stringify(d.messages);
    if (read !== historyShown.current && !latest.current.running) {
      historyShown.current = read;
      update((s) => ({ ...s, items: mergeItems(s.items, itemsOfHistory(d.messages)) }));
    }
    return d;
  }, [api, session, update]);

  // While idle, notice a turn started elsewhere: one of the API (another tab, another device) is followed; one of
  // another client (the CLI) is said to keep the chat busy, and what it saves comes in as it is saved and when it
  // ends — the chat is not opened again (the draft, the reader's place and the chat's nodes stay).
  useEffect(() => {
    if (chat.running) return;
    let watching = false;
    const watch = async () => {
      const signal = gone.current.signal;
      const newest = await newestRun(api, session);
      if (signal.aborted || latest.current.running) return;
      const busy = elsewhereRun.current;
      const unseen = newest !== undefined && newest.id !== seenRun.current;
      seenRun.current = newest?.id;
      if (newest?.status === 'running') {
        const d = await refresh();
        if (busy === newest.id || signal.aborted || latest.current.running) return;
        // A new turn: its events, if it is the API's, shown once they say it is the last prompt's (`stream`).
        const follow = (h: StreamHandlers) => api.follow(session, undefined, h);
        const followed = await stream(follow, { quiet: true, eager: true, after: d.messages });
        if (!signal.aborted && !followed) busyElsewhere(newest.id);
      } else if (busy !== undefined) {
        // The other client's turn ended: what it saved, and how it went.
        busyElsewhere(undefined);
        const d = await refresh();
        if (signal.aborted || latest.current.running) return;
        update((s) => ({
          ...s,
          pending: d.pendingApprovals,
          status: d.pendingApprovals.length ? 'waiting for approval' : (newest?.status ?? s.status),
        }));
        onChanged();
      } else if (unseen) {
        // A turn that began and ended between two looks (another tab's quick answer, or one that stopped for an
        // approval): what it saved, the calls it waits on, and how it went.
        const d = await refresh();
        if (signal.aborted || latest.current.running) return;
        update((s) => ({
          ...s,
          pending: d.pendingApprovals,
          status: d.pendingApprovals.length ? 'waiting for approval' : newest.status,
        }));
        onChanged();
      }
    };
    const timer = setInterval(() => {
      if (!watching) {
        watching = true;
        watch()
          .catch(() => {})
          .finally(() => {
            watching = false;
          });
      }
      // An approval shown here may have been answered elsewhere: then it is no longer pending, show what happened.
      if (latest.current.pending.length)
        answeredElsewhere(api, session, latest.current.pending).then(
          (answered) => answered && !latest.current.running && setOpened((n) => n + 1),
          () => {},
        );
    }, WATCH_MS);
    return () => clearInterval(timer);
  }, [api, session, chat.running, refresh, stream, update, onChanged, busyElsewhere]);

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
    if (!prompt || chat.running || elsewhereRun.current !== undefined) return;
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
    // A request that got no answer may still have started a turn: the error says so, and the idle chat's watch finds
    // such a turn running and follows it.
    const errorFor = (failure: unknown) =>
      failure instanceof Unreachable
        ? `${failure.message}: the message may not have been sent. It is back in the box: if no answer starts in a few seconds, send it again.`
        : errorText(failure);
    // The draft stays stored until the turn's first event says the server took it.
    const taking = (h: StreamHandlers): StreamHandlers => ({
      ...h,
      onEvent(event) {
        sent(prompt);
        h.onEvent(event);
      },
    });
    stream((h) => api.turn(session, prompt, taking(h)), { errorFor }).catch((failure: unknown) => {
      // Refused before it started (the chat is busy in another tab, …), or the server never answered (it could not
      // be reached, or the connection broke before an answer): the message goes back into the box, and no turn of
      // this tab is said to run.
      if (!(failure instanceof ApiFailure || failure instanceof Unreachable)) return;
      update((s) => ({ ...s, items: s.items.filter((item) => item.key !== key), status }));
      setDraft((d) => d || prompt);
    });
  };
  const decide = (decisions: Record<string, ApprovalDecision>) => {
    const pending = chat.pending;
    setError(undefined);
    // Answered elsewhere (another tab, another device), or its turn runs there now (409): no error, the session says
    // what happened to the calls.
    const errorFor = (failure: unknown) =>
      failure instanceof ApiFailure && failure.status === 409
        ? undefined
        : failure instanceof Unreachable
          ? `${failure.message}: the answer may not have been sent. If the calls still wait in a few seconds, answer again.`
          : errorText(failure);
    stream((h) => api.approvals(session, decisions, h), { errorFor }).catch((failure: unknown) => {
      if (failure instanceof ApiFailure && failure.status === 409) {
        // Reopening the session shows what happened to the calls (or follows the turn) instead of a card nobody can
        // answer.
        setOpened((n) => n + 1);
        return;
      }
      // Refused (e.g. arguments the server found invalid), or the server never answered: the calls still wait.
      update((s) => ({ ...s, pending, status: 'waiting for approval' }));
    });
  };
  const cancel = () => {
    api.cancel(session).catch((failure: unknown) => setError(errorText(failure)));
  };

  const busy = chat.running || opening;
  const title = detail?.title || session;
  const totalIn = (detail?.inputTokens ?? 0) + chat.usage.inputTokens;
  const totalOut = (detail?.outputTokens ?? 0) + chat.usage.outputTokens;
  const context = chat.usage.context;
  if (missing)
    return (
      <main id="main" tabIndex={-1} class="chat">
        <header class="chat-head">
          <h1>{session}</h1>
        </header>
        <p role="alert" class="error">
          No such chat.
        </p>
        <p>
          <a href="#/new">Start a new chat</a>
        </p>
      </main>
    );
  return (
    <main id="main" tabIndex={-1} class="chat">
      <header class="chat-head">
        <h1>{title}</h1>
        <a href={hrefOf.skills(session)}>Skills</a>
      </header>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe: scrollable-region-focusable) */}
      <div class="log" ref={log} role="log" aria-label="Conversation" aria-busy={busy} tabIndex={0}>
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
          onInput={(e) => typed(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e);
          }}
        />
        {chat.running ? (
          <button type="button" class="danger" onClick={cancel}>
            Cancel
          </button>
        ) : (
          <button
            type="submit"
            disabled={!draft.trim() || chat.pending.length > 0 || elsewhere !== undefined}
          >
            Send
          </button>
        )}
      </form>
      <div class="status" role="status">
        <span class="turn-status">
          {chat.running
            ? 'Answering…'
            : elsewhere !== undefined
              ? 'Busy: a turn runs on this chat in another client (the CLI, a script)'
              : chat.status
                ? `Last turn: ${chat.status}`
                : 'Ready'}
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
