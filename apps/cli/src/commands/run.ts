import { agentGapLine } from '@birdie/runtime/agent-gaps';
import { listenForRetries, retryLine } from '@birdie/runtime/retry-notice';
import { approvalMode, openRuntime, waitingLine, waitMs } from '@birdie/runtime/runtime';
import { sessionFromFlags } from '@birdie/runtime/session-from-flags';
import { isStoreFailureCode, storeFailureText, turnFailure } from '@birdie/runtime/store-failure';
import { executeTurn, type TurnEvent } from '@birdie/runtime/turn';
import { SAMPLING_REFUSAL, unaskedApprovals } from '@birdie/runtime/unasked-approvals';
import { EventPrinter } from '@birdie/terminal/events';
import { styler } from '@birdie/terminal/style';
import { reportLoad } from '@birdie/terminal/workspace-trust';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, type Input, UsageError, write } from '../io.js';
import { eventJson, turnResultJson } from '../render/json-events.js';
import { sessionFlags } from '../render/session-flags.js';
import { thrownTurnJson, type UsedTokens } from '../render/thrown-turn.js';
import { unsentTurnError } from '../render/turn-error-json.js';
import { endChildProcesses, onStopSignal, stopReasonOf } from '../stop-signals.js';

/** `birdie run "<prompt>" | -`: one turn, no terminal needed; text or `--json` events on stdout. */
export async function runCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const prompt = positionals[0] === '-' ? await readAll(io.stdin) : positionals[0]!;
  if (prompt.trim() === '') throw new UsageError('the prompt is empty');
  approvalMode(values); // a bad --approval fails before anything loads
  const json = values.json === true;
  const wait = waitMs(values, 0);
  const rt = await openRuntime(io, values);
  const approval = approvalMode(values, rt.config.settings.approval);
  reportLoad(io, rt.registry);
  const controller = new AbortController();
  let stopped = false;
  // Output that cannot be written stops the run too; bin.ts says so in one line (or not at all for a closed pipe).
  let outputGone = false;
  const stopListening = onStopSignal((signal) => {
    stopped = true;
    outputGone = signal === 'SIGPIPE';
    controller.abort(stopReasonOf(signal, 'interrupted'));
  });
  try {
    const { session, agent, staleGrants, gaps } = await sessionFromFlags(
      rt,
      values,
      await sessionToUse(io, values),
    );
    for (const note of staleGrants) write(io.stderr, `birdie: ${note}`);
    if (gaps) write(io.stderr, `birdie: ${agentGapLine(gaps, 'flags')}`);
    const emit = (line: unknown) => write(io.stdout, typeof line === 'string' ? line : JSON.stringify(line));
    if (json)
      emit({
        type: 'session',
        id: session.id,
        user: rt.userId,
        provider: `${rt.provider.config.vendor}/${rt.provider.config.model}`,
        ...(agent !== undefined ? { agent } : {}),
        sources: rt.provider.sources,
        ...(rt.provider.ignored.length ? { ignored: rt.provider.ignored } : {}),
      });
    const style = styler(io.stderr, io.env);
    const printer = new EventPrinter({
      answer: io.stdout,
      info: io.stderr,
      style,
      mode: () => 'short',
      sessionId: session.id,
    });
    // Nobody is asked: every call that needs approval is refused (or, with --yes, approved), and so is MCP sampling.
    const unasked = unaskedApprovals(values.yes === true, {
      approval: (request, refusal) =>
        json
          ? emit({ type: 'approval-refused', id: request.id, tool: request.tool, reason: refusal })
          : write(
              io.stderr,
              `birdie: ${request.tool} ${JSON.stringify(request.args)} needs approval. ${refusal}`,
            ),
      sampling: (server) =>
        json
          ? emit({ type: 'sampling-refused', server, reason: SAMPLING_REFUSAL })
          : write(io.stderr, `birdie: MCP server ${server} asked to use the model. ${SAMPLING_REFUSAL}`),
    });
    listenForRetries((notice) =>
      json ? emit({ type: 'retry', ...notice }) : write(io.stderr, `birdie: ${retryLine(notice)}`),
    );
    const used: UsedTokens = { inputTokens: 0, outputTokens: 0 };
    // With `--json`, the turn's `done` waits for its result: a turn that ended `error` without an `error` event of
    // its own agent (a store call of the runtime's failed mid-turn) gets one first, and a turn that throws gets its
    // own end instead (`thrownTurnJson`).
    let done: TurnEvent | undefined;
    let errorSent = false;
    const onEvent = (event: TurnEvent) => {
      if (event.type === 'usage') {
        used.inputTokens += event.inputTokens;
        used.outputTokens += event.outputTokens;
      }
      // A subagent's error reaches its parent as its `task` call's result: only the turn's own says why it ended.
      if (event.type === 'error' && (event.agent?.length ?? 0) <= 1) errorSent = true;
      if (!json) printer.onEvent(event);
      else if (event.type === 'done') done = event;
      else emit(eventJson(event));
    };
    const turn = executeTurn(rt, session, prompt, {
      approval,
      signal: controller.signal,
      waitMs: wait,
      ...(agent !== undefined ? { agent } : {}),
      beforeLog: unasked.beforeLog,
      handlers: {
        onWait: (holder, ms) => write(io.stderr, waitingLine(session.id, holder, ms)),
        onEvent,
        // Nobody can fill an MCP server's form here (elicitation is declined); sampling only with --yes.
        mcp: { approveSampling: unasked.approveSampling },
        decide: unasked.decide,
      },
    });
    // A turn that throws (a busy session, a store that cannot start or log the run) ends the command through `main`,
    // which says why on stderr with its exit code; the `--json` stream gets its end first.
    const result = await turn.catch((error: unknown) => {
      if (json) for (const line of thrownTurnJson(error, session.id, used)) emit(line);
      throw error;
    });
    if (json) {
      if (result.status === 'error' && !errorSent) emit(unsentTurnError(result, session.id));
      emit(eventJson(done ?? { type: 'done', status: result.status }));
      emit({
        ...turnResultJson({
          status: result.status,
          session: session.id,
          inputTokens: result.inputTokens,
          outputTokens: result.outputTokens,
        }),
      });
    } else if (result.runId !== undefined)
      // A turn that never started (stopped while waiting for the session) used nothing to sum up.
      write(
        io.stderr,
        style(
          'dim',
          `session ${session.id} · ↑${result.inputTokens} ↓${result.outputTokens} tok (continue with ${sessionFlags(io, rt.userId, session.id)})`,
        ),
      );
    if (result.status === 'ok') return EXIT_OK;
    if (!json && result.status === 'error' && result.error && !printer.printedError) {
      write(
        io.stderr,
        `birdie: ${isStoreFailureCode(result.errorCode) ? '' : 'run failed: '}${storeFailureText(turnFailure(result), session.id)}`,
      );
    }
    if (result.status === 'cancelled' && !outputGone) write(io.stderr, 'birdie: interrupted');
    if (unasked.refused() > 0 && !json)
      write(io.stderr, `birdie: ${unasked.refused()} tool call(s) refused for lack of approval`);
    return EXIT_RUN;
  } finally {
    stopListening();
    await rt.close();
    if (stopped) await endChildProcesses();
  }
}

async function readAll(input: Input): Promise<string> {
  if (input.isTTY)
    throw new UsageError('`birdie run -` reads the prompt from stdin, but stdin is a terminal; pipe text in');
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The session `--session-id` names, or with `--continue` the one used last; undefined: a new one. */
async function sessionToUse(
  io: CommandContext['io'],
  values: CommandContext['values'],
): Promise<string | undefined> {
  const id = typeof values['session-id'] === 'string' ? values['session-id'] : undefined;
  if (values.continue !== true) return id;
  if (id !== undefined) throw new UsageError('give --continue or --session-id, not both');
  return (await import('@birdie/runtime/user-sessions')).latestSessionId(io, values);
}
