import { prepareToolCall, ToolLookupError } from '@birdie/runtime/tool-call';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';
import { reportSkillProblems } from '@birdie/terminal/diagnostics';
import { textFor } from '@birdie/terminal/terminal-text';
import { endChildProcesses, onStopSignal, stopReasonOf } from '../stop-signals.js';

/**
 * `birdie tool NAME --args '{…}'`: one skill tool through its real entrypoint, no model, exactly as the agent would
 * call it (see `prepareToolCall`). With `--session-id` the tool runs as that session (the environment a turn of it
 * would give); without, it has no session. What the tool prints apart from its result goes to stderr as it runs.
 * The output goes to stdout, a failure's text to stderr (exit 1): exactly
 * as the tool wrote it into a pipe or a file, as text without its escape sequences into a terminal.
 */
export async function toolCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const call = await prepareToolCall(io, values, positionals[0]!, {
    ...(typeof values.args === 'string' ? { args: values.args } : {}),
    ...(values.timeout !== undefined ? { timeout: String(values.timeout) } : {}),
    ...(typeof values['session-id'] === 'string' ? { sessionId: values['session-id'] } : {}),
  }).catch((error: unknown) => {
    // A tool refused at load, or not found: what the skills check says about it (file:line) comes before the error.
    if (error instanceof ToolLookupError) reportSkillProblems(error.diagnostics, io);
    throw error;
  });
  const controller = new AbortController();
  let stopped = false;
  const stopListening = onStopSignal((signal) => {
    stopped = true;
    controller.abort(stopReasonOf(signal, 'interrupted'));
  });
  try {
    // What the tool prints apart from its result (a python: function's print()) is how its author debugs it: shown
    // on stderr as it arrives, as text without escape sequences into a terminal.
    const result = await call.run(controller.signal, (text) => io.stderr.write(textFor(io.stderr, text)));
    const text =
      result.content.endsWith('\n') || result.content === '' ? result.content : `${result.content}\n`;
    if (!result.ok) {
      io.stderr.write(textFor(io.stderr, text));
      return EXIT_RUN;
    }
    io.stdout.write(textFor(io.stdout, text));
    if (result.truncated) write(io.stderr, 'birdie: output truncated at the output cap');
    return EXIT_OK;
  } finally {
    stopListening();
    if (stopped) await endChildProcesses();
    await call.close();
  }
}
