import { Validator } from '@cfworker/json-schema';
import { createTwoFilesPatch } from 'diff';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { refocusIn } from './focus.js';
import { shown, shownJson } from './shown.js';
import type { ApprovalDecision, ApprovalRequest } from './types.js';

/**
 * Edited arguments → the problems the tool's JSON Schema finds (none: `[]`). @cfworker/json-schema validates without
 * generating code (ajv compiles with `new Function`, which the app's Content-Security-Policy forbids).
 */
export function schemaProblems(args: unknown, schema: Record<string, unknown> | undefined): string[] {
  if (!schema) return [];
  const result = new Validator(schema as never, '2020-12', false).validate(args);
  return result.valid
    ? []
    : result.errors
        .filter((e) => e.keyword !== 'properties' && e.keyword !== 'allOf')
        .map((e) => `${e.instanceLocation.replace(/^#\/?/, '') || 'arguments'}: ${e.error}`);
}

function FileChanges({ request }: { request: ApprovalRequest }) {
  const changes = request.preview?.changes ?? [];
  if (request.preview?.error) return <p class="hint">No preview: {shown(request.preview.error)}</p>;
  return (
    <>
      {changes.map((change) =>
        change.kind === 'folder' ? (
          <p key={change.path}>
            New folder <code>{shown(change.path)}</code>
          </p>
        ) : (
          <section key={change.path} class="diff" aria-label={`Changes to ${shown(change.path)}`}>
            <pre>
              {createTwoFilesPatch(
                change.path,
                change.path,
                change.before ?? '',
                change.after ?? '',
                undefined,
                undefined,
                { context: 3 },
              )
                .split('\n')
                .slice(2)
                .map((line, i) => (
                  <span
                    key={i}
                    class={
                      line.startsWith('+')
                        ? 'add'
                        : line.startsWith('-')
                          ? 'del'
                          : line.startsWith('@@')
                            ? 'hunk'
                            : ''
                    }
                  >
                    {shown(line)}
                    {'\n'}
                  </span>
                ))}
            </pre>
          </section>
        ),
      )}
    </>
  );
}

/**
 * Whether the card offers "Approve for this chat" (the whole tool for the session): never at a raw shell command, where
 * one click would let every later command the model writes run unasked (the API takes no command pattern to offer
 * instead), nor at a call an ask rule asks about, which no session approval answers.
 */
function offersChat(request: ApprovalRequest): boolean {
  return request.raw !== true && request.reason !== 'raw-command' && request.reason !== 'rule';
}

/** One pending call: what would run, and the answers (approve, for this chat where offered, edit, reject). */
function Pending(props: {
  request: ApprovalRequest;
  onDecide(decision: ApprovalDecision): void;
  busy: boolean;
}) {
  const { request, onDecide, busy } = props;
  const [mode, setMode] = useState<'ask' | 'edit' | 'reject'>('ask');
  const [text, setText] = useState(() => shownJson(request.args));
  const [message, setMessage] = useState('');
  const problems = useMemo(() => {
    if (mode !== 'edit') return [];
    try {
      return schemaProblems(JSON.parse(text), request.parameters);
    } catch (error) {
      return [`not JSON: ${error instanceof Error ? error.message : String(error)}`];
    }
  }, [mode, text, request.parameters]);
  const id = `approval-${request.id}`;
  // The card appears under a message box it disables, and each mode replaces the button that chose it: the focus
  // goes to the card's first control instead of falling to the page (the first card's, when several appear).
  const card = useRef<HTMLElement>(null);
  // Asked: the focus goes to Approve without scrolling the card, whose title and description (what is approved) stay
  // in view above it however long the arguments are; in Edit and Reject, to the text box, scrolled to.
  useEffect(
    () => refocusIn(card.current, undefined, mode === 'ask' ? { preventScroll: true } : undefined),
    [mode],
  );
  return (
    <section class="approval" ref={card} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Run <code>{shown(request.tool)}</code>?
      </h2>
      <p class="hint">
        {shown(request.description)}
        {request.skill ? ` (skill ${shown(request.skill)})` : ''} · {request.reason.replace(/-/g, ' ')}
        {request.agent?.length ? ` · asked by ${request.agent.join(' › ')}` : ''}
      </p>
      {request.preview?.changes || request.preview?.error ? <FileChanges request={request} /> : null}
      {mode === 'edit' ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (problems.length === 0)
              onDecide({ type: 'edit', args: JSON.parse(text) as Record<string, unknown> });
          }}
        >
          <label for={`${id}-args`}>Arguments (JSON)</label>
          <textarea
            id={`${id}-args`}
            rows={Math.min(16, text.split('\n').length + 1)}
            value={text}
            aria-invalid={problems.length > 0}
            aria-describedby={`${id}-problems`}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <ul id={`${id}-problems`} class="error" aria-live="polite">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          <button type="submit" disabled={busy || problems.length > 0}>
            Run with these arguments
          </button>
          <button type="button" class="quiet" onClick={() => setMode('ask')}>
            Back
          </button>
        </form>
      ) : mode === 'reject' ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onDecide({ type: 'reject', ...(message.trim() ? { message: message.trim() } : {}) });
          }}
        >
          <label for={`${id}-message`}>Message to the model (optional)</label>
          <textarea
            id={`${id}-message`}
            rows={2}
            value={message}
            onInput={(e) => setMessage(e.currentTarget.value)}
          />
          <button type="submit" class="danger" disabled={busy}>
            Reject
          </button>
          <button type="button" class="quiet" onClick={() => setMode('ask')}>
            Back
          </button>
        </form>
      ) : (
        <>
          <h3 class="sr-only">Arguments</h3>
          <pre class="args">{shownJson(request.args)}</pre>
          <div class="buttons">
            <button type="button" disabled={busy} onClick={() => onDecide({ type: 'approve' })}>
              Approve
            </button>
            {offersChat(request) ? (
              <button
                type="button"
                disabled={busy}
                onClick={() => onDecide({ type: 'approve', scope: 'session' })}
              >
                Approve for this chat
              </button>
            ) : null}
            <button type="button" class="quiet" disabled={busy} onClick={() => setMode('edit')}>
              Edit
            </button>
            <button type="button" class="quiet" disabled={busy} onClick={() => setMode('reject')}>
              Reject…
            </button>
          </div>
        </>
      )}
    </section>
  );
}

/** The calls a turn waits for; once each has an answer, they go together (the API wants one per pending call). */
export function Approvals(props: {
  requests: ApprovalRequest[];
  busy: boolean;
  onSend(decisions: Record<string, ApprovalDecision>): void;
}) {
  const [decided, setDecided] = useState<Record<string, ApprovalDecision>>({});
  const open = props.requests.filter((r) => !decided[r.id]);
  // A card answered (while others still wait) goes with its focused button: on to the next card's first action.
  const cards = useRef<HTMLDivElement>(null);
  useEffect(
    () => refocusIn(cards.current, '.approval button:not([disabled])', { preventScroll: true }),
    [open.length],
  );
  return (
    <div class="approvals" ref={cards}>
      {open.map((request) => (
        <Pending
          key={request.id}
          request={request}
          busy={props.busy}
          onDecide={(decision) => {
            const next = { ...decided, [request.id]: decision };
            if (props.requests.every((r) => next[r.id])) {
              setDecided({});
              props.onSend(next);
            } else setDecided(next);
          }}
        />
      ))}
    </div>
  );
}
