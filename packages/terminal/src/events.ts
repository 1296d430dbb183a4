import type { AgentEvent } from '@birdie/graph';
import { fromSubagent } from '@birdie/graph/event-json';
import { formatMs } from '@birdie/runtime/duration-text';
import { type HintPlace, isStoreFailureCode, storeFailureText } from '@birdie/runtime/store-failure';
import type { TurnEvent } from '@birdie/runtime/turn';
import type { Output } from './output.js';
import type { AnswerSink } from './answer-sink.js';
import type { Style } from './style.js';
import { terminalText } from './terminal-text.js';
import { formatArgs, type ToolOutputMode, toolOutputView } from './tool-output.js';
import { WordWrap, wrapWords } from './word-wrap.js';

/** How a call that is not `ok` is marked: failed, or why it did not run to its end. */
const OUTCOME = {
  failed: 'failed',
  rejected: 'rejected',
  refused: 'refused',
  cancelled: 'cancelled by the user',
} as const;

/**
 * A call that did not succeed, marked as why: a call stopped while it ran says what stopped it, as its answer does
 * (`cancelled by the user`, `stopped because birdie was stopped (SIGTERM)`), not the user's cancel for every stop.
 */
function outcomeLabel(event: Extract<AgentEvent, { type: 'tool-end' }>): string {
  // The note is an abort reason's: whoever aborted wrote it, so it is shown as any other outside text is.
  const note = event.outcome === 'cancelled' ? event.stopNote?.trim() : undefined;
  if (note) return terminalText(note.charAt(0).toLowerCase() + note.slice(1));
  return OUTCOME[event.outcome ?? 'failed'];
}

export interface PrinterOptions {
  /** Where the answer's tokens go. */
  answer: Output;
  /** Where tool calls, results and errors go (stderr for `birdie run`, the terminal for the REPL). */
  info: Output;
  style: Style;
  mode(): ToolOutputMode;
  /** Called before anything is written (the REPL stops its spinner) and when the agent waits again. */
  onWrite?(): void;
  onIdle?(): void;
  /** The session of the turn: a store failure's fix names it (`birdie sessions repair ID`). */
  sessionId?: string;
  /** Where the output is read: a fix names that place's commands (default: the shell's). */
  hintsFor?: HintPlace;
  /** A terminal's width: the answer and error messages are wrapped between words at it (undefined: written as they
   * come, for pipes). */
  wrapWidth?: () => number;
  /** Takes the answer's text instead (the REPL's Markdown rendering); `wrapWidth` then wraps only error messages. */
  answerSink?: AnswerSink;
}

/** Renders agent events as text: streamed answer, then each tool call and its result per the output mode. */
export class EventPrinter {
  private answerAtLineStart = true;
  private readonly starts = new Map<string, { name: string; args: Record<string, unknown> }>();
  /** The call whose header is the last thing printed: its result can follow without naming it again. */
  private lastHeader: string | undefined;
  /** Calls started and not ended yet. */
  private readonly running = new Set<string>();

  private readonly wrap: WordWrap | undefined;

  constructor(private readonly o: PrinterOptions) {
    this.wrap = o.wrapWidth ? new WordWrap((text) => o.answer.write(text), o.wrapWidth) : undefined;
  }

  /** An `error` event was shown, so the caller need not repeat it. */
  printedError = false;

  onEvent(event: AgentEvent | TurnEvent): void {
    const { style } = this.o;
    // Anything else printed after a call's header separates its result from it.
    if (event.type === 'token' || event.type === 'error' || event.type === 'model-tool')
      this.lastHeader = undefined;
    switch (event.type) {
      case 'token': {
        // A subagent's text is its `task` call's result, shown under that call: the answer is the session agent's.
        if (fromSubagent(event)) return;
        // The model's text, as data: no escape sequence of it reaches the terminal (see terminal-text.ts).
        const text = terminalText(event.text);
        if (!text) return;
        this.o.onWrite?.();
        if (this.o.answerSink) this.o.answerSink.push(text);
        else if (this.wrap) this.wrap.push(text);
        else this.o.answer.write(text);
        this.answerAtLineStart = !this.o.answerSink && text.endsWith('\n');
        return;
      }
      case 'tool-start': {
        this.o.onWrite?.();
        this.breakLine();
        // A name comes from the model: a made-up one is shown as text too.
        this.starts.set(event.id, { name: terminalText(event.name), args: event.args });
        this.running.add(event.id);
        const owner = event.skill ? style('dim', ` (${event.skill})`) : '';
        this.o.info.write(
          `${style('magenta', '⚙')} ${style('bold', terminalText(event.name))}${owner} ${style('dim', formatArgs(event.args))}\n`,
        );
        this.lastHeader = event.id;
        return;
      }
      case 'tool-end': {
        this.o.onWrite?.();
        if (!this.starts.has(event.id)) {
          // Refused or rejected calls never start: name them before their reason.
          this.breakLine();
          this.o.info.write(
            `${style('magenta', '⚙')} ${style('bold', terminalText(event.name))} ${style('dim', '(not run)')}\n`,
          );
        }
        const started = this.starts.get(event.id);
        this.running.delete(event.id);
        if (started && (this.lastHeader !== event.id || this.running.size > 0)) {
          // Calls run side by side: other headers or results came between, so say whose result this is.
          this.o.info.write(
            `${style('dim', '↳')} ${style('bold', started.name)} ${style('dim', formatArgs(started.args))}\n`,
          );
        }
        this.lastHeader = undefined;
        const view = toolOutputView(terminalText(event.output), this.o.mode());
        if (view.body !== null && view.body !== '') {
          const body = view.body.endsWith('\n') ? view.body.slice(0, -1) : view.body;
          this.o.info.write(
            `${body
              .split('\n')
              .map((line) => `${style('dim', '│')} ${line}`)
              .join('\n')}\n`,
          );
        }
        const mark = event.ok ? style('green', '✓') : style('red', `✗ ${outcomeLabel(event)}`);
        const extra = event.truncated ? ', truncated' : '';
        this.o.info.write(
          `${style('dim', '└')} ${mark} ${style('dim', `${terminalText(event.name)} · ${view.note}${extra} · ${formatMs(event.durationMs)}`)}\n`,
        );
        this.o.onIdle?.();
        return;
      }
      case 'error': {
        this.o.onWrite?.();
        this.breakLine();
        // A store failure reads the same whichever step met it (see store-failure.ts); other errors keep their code.
        const label = isStoreFailureCode(event.error.code) ? 'birdie:' : `error (${event.error.code}):`;
        const text = terminalText(storeFailureText(event.error, this.o.sessionId, this.o.hintsFor));
        // In a terminal the message breaks between words; the terminal's own wrap would cut a word (or a URL) in two.
        const shown = this.o.wrapWidth ? wrapWords(text, this.o.wrapWidth(), label.length + 1) : text;
        this.o.info.write(`${style('red', label)} ${shown}\n`);
        this.printedError = true;
        return;
      }
      case 'tool-approved': {
        // A call that would have asked: the user approved its tool for the session (its header follows).
        this.o.onWrite?.();
        this.breakLine();
        this.o.info.write(`${sessionApprovedLine(style, event.name)}\n`);
        return;
      }
      case 'tool-rule': {
        // A rule decided a call: which rule, from where (an `ask` shows as the question itself, so only allow/deny).
        if (event.effect === 'ask') return;
        this.o.onWrite?.();
        this.breakLine();
        this.o.info.write(`${ruleLine(style, event)}\n`);
        return;
      }
      case 'compaction': {
        // Compaction changes what is sent, never what is stored: one line says it happened and what it saved.
        this.o.info.write(
          `${style('dim', `⟲ compacted: ${event.messages} older messages now sent as a summary (${event.tokensBefore} → ${event.tokensAfter} tok of ${event.window}; /compact to do it now)`)}\n`,
        );
        break;
      }
      case 'model-tool': {
        // The model's own agent ran (or runs) this tool: shown once it has an outcome, never run by birdie.
        if (event.status !== 'completed' && event.status !== 'failed') return;
        this.o.onWrite?.();
        this.breakLine();
        const mark = event.status === 'completed' ? style('green', '✓') : style('red', '✗');
        this.o.info.write(
          `${style('magenta', '⚙')} ${style('dim', `${terminalText(event.title)} (the model's agent)`)} ${mark}\n`,
        );
        this.o.onIdle?.();
        return;
      }
      case 'done': {
        this.o.onWrite?.();
        this.breakLine();
        return;
      }
      default:
        return;
    }
  }

  /** Writes what is held of the answer and ends its line (before something else is printed under it). */
  endAnswer(): void {
    this.breakLine();
  }

  private breakLine(): void {
    this.wrap?.reset();
    if (this.o.answerSink) {
      this.o.answerSink.end();
      this.answerAtLineStart = true;
    }
    if (!this.answerAtLineStart) {
      this.o.answer.write('\n');
      this.answerAtLineStart = true;
    }
  }
}

/** A call that runs without asking, because the user approved its tool for the session. */
export function sessionApprovedLine(style: Style, tool: string): string {
  return `${style('green', '✓')} ${style('dim', `${tool} approved for this session`)}`;
}

/** `✓ run_bash allowed by run_bash(npm test *) (user settings)`, or `✗ … refused by …`. */
export function ruleLine(
  style: Style,
  event: {
    name: string;
    effect: 'allow' | 'ask' | 'deny';
    pattern: string;
    source: { kind: string; name?: string };
  },
): string {
  const from = `${event.source.kind}${event.source.name ? ` ${event.source.name}` : ''}`;
  return event.effect === 'deny'
    ? `${style('red', '✗')} ${style('dim', `${event.name} refused by the deny rule ${event.pattern} (${from})`)}`
    : `${style('green', '✓')} ${style('dim', `${event.name} ${event.effect === 'allow' ? 'allowed' : 'asked'} by the rule ${event.pattern} (${from})`)}`;
}
