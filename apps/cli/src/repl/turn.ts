import { listenForRetries, retryCountdown } from '@birdie/runtime/retry-notice';
import { waitingLine } from '@birdie/runtime/runtime';
import { typedTurnText } from '@birdie/runtime/session-choices';
import {
  isStoreErrorLike,
  isStoreFailureCode,
  sessionBusyCause,
  storeFailure,
  storeFailureText,
  turnFailure,
} from '@birdie/runtime/store-failure';
import { executeTurn } from '@birdie/runtime/turn';
import { CliError, EXIT_RUN } from '../io.js';
import { EventPrinter } from '@birdie/terminal/events';
import { endChildProcesses, onStopSignal, stopReasonOf } from '../stop-signals.js';
import { EventGate, loadMarkdown, MarkdownAnswer, rendersMarkdown } from './answer-markdown.js';
import { askApprovals } from './approval.js';
import { LiveTools } from '@birdie/terminal/live-tools';
import { type Paused, replMcpHandlers } from './mcp-questions.js';
import { Spinner } from '@birdie/terminal/spinner';
import { out, printStatus, type ReplState } from './state.js';

const THINKING = 'thinking… (Ctrl+C cancels)';

/**
 * One turn in the terminal. While it runs, stdin is raw and Ctrl+C aborts the turn: the signal reaches the model
 * call and every running tool, whose process groups are killed.
 */
export async function replTurn(
  state: ReplState,
  typed: string,
  options: { mentions?: boolean } = {},
): Promise<void> {
  const { io, style } = state;
  // `@path` and `@server:uri` mentions: the files and MCP resources go with the message; each one attached, cut or
  // refused is said above the answer.
  let text = typed;
  if (options.mentions !== false) {
    const attached = await typedTurnText(state.rt, state.session.id, typed);
    text = attached.text;
    for (const note of attached.notes) out(state, style('dim', note));
  }
  const controller = new AbortController();
  const spinner = new Spinner(io.stdout, style);
  // Running tools show their output and time in place; not in a pipe or under NO_COLOR (no redrawing there).
  const live =
    io.stdout.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb'
      ? new LiveTools({ out: io.stdout, style })
      : undefined;
  const onKey = (data: Buffer | string) => {
    if (String(data).includes('\x03') && !controller.signal.aborted) {
      live?.pause();
      spinner.stop();
      // A rendered answer shows what it holds of its last block before the notice, which goes under it.
      const notice = () => {
        if (markdown) printer.endAnswer();
        out(state, style('yellow', '^C cancelling…'));
      };
      if (gate.holding) void gate.open.then(notice);
      else notice();
      controller.abort(new Error('cancelled by the user'));
    }
  };
  const onSigint = () => onKey('\x03');
  // A closed terminal or a SIGTERM ends the REPL, but first the turn, so its tools' process groups are killed.
  let terminated: string | undefined;
  const stopListening = onStopSignal(
    (signal) => {
      terminated = signal;
      live?.pause();
      spinner.stop();
      controller.abort(stopReasonOf(signal, 'terminated'));
    },
    ['SIGTERM', 'SIGHUP'],
  );
  const listen = (on: boolean) => {
    if (on) {
      io.stdin.setRawMode?.(true);
      io.stdin.on('data', onKey);
      io.stdin.resume();
    } else {
      io.stdin.off('data', onKey);
      io.stdin.pause();
    }
  };
  // Markdown rendering loads on the first turn (not at start); events wait for it, in order, on that turn only.
  const markdown = rendersMarkdown(io) ? new MarkdownAnswer(io, style) : undefined;
  const printer = new EventPrinter({
    answer: io.stdout,
    info: io.stdout,
    style,
    mode: () => state.toolMode,
    onWrite: () => spinner.stop(),
    onIdle: () => {
      // While other calls run, their live area shows progress instead of the spinner.
      if (!controller.signal.aborted && !live?.active) spinner.start(THINKING);
    },
    sessionId: state.session.id,
    hintsFor: 'repl',
    // Answers wrap between words at the terminal's width (read each time: the window may be resized).
    ...(io.stdout.isTTY ? { wrapWidth: () => (io.stdout as { columns?: number }).columns || 80 } : {}),
    ...(markdown ? { answerSink: markdown } : {}),
  });
  const gate = new EventGate<Parameters<EventPrinter['onEvent']>[0]>(
    markdown ? loadMarkdown().then((renderer) => markdown.use(renderer)) : undefined,
    (event) => {
      live?.before(event);
      printer.onEvent(event);
      live?.after();
    },
  );
  const endRenderedAnswer = () => {
    if (markdown && !gate.holding) printer.endAnswer();
  };
  // A question during the turn (an approval, an MCP server's request) with the turn's output paused.
  const paused: Paused = async (ask) => {
    await gate.open;
    live?.pause();
    // The question goes under the answer so far, rendered: a block left pending would be redrawn over it.
    endRenderedAnswer();
    spinner.stop();
    listen(false);
    try {
      return await ask();
    } finally {
      listen(true);
      live?.resume();
      if (!live?.active) spinner.start(THINKING);
    }
  };
  process.on('SIGINT', onSigint);
  listen(true);
  spinner.start(THINKING);
  // A rate-limited or failing vendor: the wait is shown where the spinner is, counting the attempts and, at every
  // frame, the seconds left until the retry.
  listenForRetries((notice) => {
    endRenderedAnswer();
    spinner.stop();
    const line = retryCountdown(notice);
    spinner.start(() => `${line()} (Ctrl+C cancels)`);
  });
  try {
    let result: Awaited<ReturnType<typeof executeTurn>>;
    try {
      result = await executeTurn(state.rt, state.session, text, {
        approval: state.approval,
        signal: controller.signal,
        waitMs: state.waitMs,
        ...(state.nextAgent !== undefined ? { agent: state.nextAgent } : {}),
        ...(state.model ? { model: state.model } : {}),
        handlers: {
          onWait: (holder, ms) => {
            spinner.stop();
            out(state, style('yellow', waitingLine(state.session.id, holder, ms).replace(/^birdie: /, '')));
            spinner.start(THINKING);
          },
          onEvent: (event) => gate.push(event),
          decide: (requests, { cwd }) =>
            paused(() =>
              askApprovals(
                io,
                style,
                requests,
                () => controller.abort(new Error('cancelled by the user')),
                cwd,
              ),
            ),
          mcp: replMcpHandlers(io, style, paused),
        },
      });
    } catch (error) {
      // The session is busy (after waiting), or the store cannot record the turn: say so; the REPL goes on.
      const failure = sessionBusyCause(error);
      if (!isStoreErrorLike(failure)) throw error;
      await gate.open;
      spinner.stop();
      out(state, `${style('red', 'birdie:')} ${storeFailure(failure, 'repl').message}`);
      return;
    }
    await gate.open;
    spinner.stop();
    if (markdown) printer.endAnswer();
    if (result.status === 'cancelled') out(state, style('yellow', 'turn cancelled'));
    else if (result.status === 'error' && result.error && !printer.printedError) {
      const label = isStoreFailureCode(result.errorCode) ? 'birdie:' : 'error:';
      out(state, `${style('red', label)} ${storeFailureText(turnFailure(result), state.session.id, 'repl')}`);
    }
    if (result.contextTokens) {
      state.contextTokens = result.contextTokens;
      state.contextWindow = result.contextWindow;
    }
    if (result.model) state.modelName = result.model;
    if (result.title) state.session.title = result.title;
    // The choice applied to this turn; from now on the session goes on with whoever spoke last (a handoff moves it).
    state.nextAgent = undefined;
    state.agentName = await state.rt.agent.currentAgent(state.session.id).catch(() => undefined);
    await printStatus(state);
  } finally {
    listenForRetries(undefined);
    live?.stop();
    spinner.stop();
    listen(false);
    process.off('SIGINT', onSigint);
    stopListening();
  }
  if (terminated) {
    await endChildProcesses();
    throw new CliError(`terminated by ${terminated}`, EXIT_RUN);
  }
}
