import { isSavedProviderError, nothingConfigured } from '@birdie/runtime/config';
import { approvalMode, userIdOf } from '@birdie/runtime/runtime';
import { type Style, styler } from '@birdie/terminal/style';
import type { CommandContext } from '../command-context.js';
import { UsageError } from '../io.js';
import { readInput } from '../repl/input.js';
import { packParts, terminalColumns } from '../repl/screen-fit.js';
import { cliVersion } from '../version.js';

/**
 * `birdie`: the interactive session. The prompt is drawn before LangChain, LangGraph, the store or any skill is
 * loaded; those load while the user types, and the first turn waits for them if it has to.
 */
export async function replCommand({ io, values, positionals }: CommandContext): Promise<number> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) {
    throw new UsageError(
      'the interactive session needs a terminal. Use `birdie run "<prompt>"` (or `birdie run -` to read stdin) in scripts and pipes.',
    );
  }
  const approval = approvalMode(values);
  if (nothingConfigured(io, values)) {
    const { firstRunSetup } = await import('../setup.js');
    await firstRunSetup(io);
  }
  const style = styler(io.stdout, io.env);
  if (values.continue === true && typeof values['session-id'] === 'string')
    throw new UsageError('--continue and --session-id both name a session; give one of them.');
  try {
    return await interactive({ io, values, positionals }, approval, style);
  } catch (error) {
    // The saved provider cannot be used (an empty key older versions saved): choose it again, then start.
    if (!isSavedProviderError(error)) throw error;
    io.stdout.write(`${style('red', 'birdie:')} ${error.problem}\n`);
    const { firstRunSetup } = await import('../setup.js');
    await firstRunSetup(io, { again: true });
    return await interactive({ io, values, positionals }, approval, style);
  }
}

/** The banner, then the prompt; the runtime loads behind it (or first, to resume a session). */
async function interactive(
  { io, values, positionals }: CommandContext,
  approval: ReturnType<typeof approvalMode>,
  style: Style,
): Promise<number> {
  io.stdout.write(banner(style, terminalColumns(io.stdout)));
  const resumeId =
    typeof values['session-id'] === 'string'
      ? values['session-id']
      : values.continue === true
        ? await (await import('@birdie/runtime/user-sessions')).latestSessionId(io, values)
        : undefined;
  const { bootRepl } = await import('../repl/boot.js');
  const boot = () => bootRepl(io, values, { approval, style, resumeId });
  const { runRepl } = await import('../repl/loop.js');
  // Resuming prints history before the prompt; a new session loads right after the first prompt is drawn.
  // A line typed and sent while birdie started is the first message, as if typed at the first prompt.
  const typedAhead = await (await import('../repl/type-ahead.js')).takeTypeAhead(io.stdin);
  const firstMessage = positionals[0] ?? typedAhead;
  // With a message on the command line too, the typed line comes second: given back to the prompt, sent.
  if (positionals[0] !== undefined && typedAhead !== undefined)
    io.stdin.unshift(Buffer.from(`${typedAhead}\r`));
  const { historyFile, openHistory } = await import('../repl/input-history.js');
  const history = await openHistory(historyFile(io.env, userIdOf(io, values)));
  return runRepl({
    io,
    style,
    boot: resumeId !== undefined ? await boot() : boot,
    readInput,
    history,
    ...(firstMessage !== undefined && firstMessage.trim() !== '' ? { firstMessage } : {}),
  });
}

/** `birdie VERSION · /help for commands · …keys`, broken between its parts where the terminal is narrower. */
function banner(style: Style, columns: number): string {
  const parts = [
    `birdie ${cliVersion()}`,
    '/help for commands',
    'Enter sends',
    'Ctrl+J new line',
    'Ctrl+D quits',
  ];
  return packParts(parts, ' · ', columns)
    .map((row) =>
      row.startsWith('birdie ')
        ? `${style('bold', 'birdie')} ${style('dim', row.slice('birdie '.length))}`
        : style('dim', row),
    )
    .join('\n')
    .concat('\n');
}
