import { formatMs } from '@birdie/runtime/duration-text';
import { wholeNumberFlag } from '@birdie/runtime/number-flags';
import {
  followRuns,
  getRun,
  hasRuns,
  type LoggedRun,
  listRuns,
  runId,
  runMessages,
  runQuery,
} from '@birdie/runtime/run-log';
import { runFilterFlags, toolCallsText } from '@birdie/runtime/run-summary';
import { withUserStore } from '@birdie/runtime/store-command';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';
import { styler, table } from '@birdie/terminal/style';
import { terminalText } from '@birdie/terminal/terminal-text';
import { onStopSignal } from '../stop-signals.js';

function rowOf(r: LoggedRun, style: ReturnType<typeof styler>): string[] {
  const statusColor = (s: string) => style(s === 'ok' ? 'green' : s === 'running' ? 'yellow' : 'red', s);
  return [
    String(r.id),
    r.startedAt.toISOString().slice(0, 19).replace('T', ' '),
    r.sessionId,
    statusColor(r.status),
    r.durationMs === undefined ? '-' : formatMs(r.durationMs),
    `↑${r.inputTokens} ↓${r.outputTokens}`,
    terminalText(`${r.model ?? '-'}${r.agent ? ` (${r.agent.name}@${r.agent.digest.slice(0, 8)})` : ''}`),
    terminalText(r.trigger ?? '-'),
    [
      terminalText(toolCallsText(r.toolCalls)),
      r.notices.length > 0
        ? style('dim', `${r.notices.length} MCP notice${r.notices.length === 1 ? '' : 's'}`)
        : '',
      r.error ? style('red', terminalText(r.error.split('\n')[0]!).slice(0, 80)) : '',
    ]
      .filter(Boolean)
      .join('  '),
  ];
}

const HEADER = [
  'RUN',
  'STARTED (UTC)',
  'SESSION',
  'STATUS',
  'TIME',
  'TOKENS',
  'MODEL (AGENT)',
  'TRIGGER',
  'TOOLS / ERROR',
];

/** `birdie logs`: the run log, newest first, one row per run with its tool calls; `--follow` streams new ones. */
export async function logsCommand({ io, values }: CommandContext): Promise<number> {
  const limit = wholeNumberFlag(values, 'n', { fallback: 20, min: 1, label: '-n' });
  return withUserStore(io, values, false, async (store, userId) => {
    const filters = runFilterFlags(values);
    const given = Object.entries(filters);
    const query = await runQuery(store, userId, filters);
    const runs = await listRuns(store, query, limit);
    const style = styler(io.stdout, io.env);
    if (values.json) for (const run of runs) write(io.stdout, JSON.stringify(run));
    else if (runs.length === 0 && !values.follow)
      // Why nothing is listed: no run matches the filters given, or the user has no runs at all.
      write(
        io.stdout,
        given.length === 0 || !(await hasRuns(store, userId))
          ? 'No runs logged yet.'
          : `No runs match ${given.map(([name, value]) => `--${name} ${value}`).join(' ')}; \`birdie logs\` lists every run.`,
      );
    else if (runs.length > 0)
      io.stdout.write(
        table(
          runs.map((r) => rowOf(r, style)),
          HEADER.map((h) => style('bold', h)),
        ),
      );
    if (values.follow) {
      // Each run as it starts and as it ends, until SIGINT or SIGTERM.
      const abort = new AbortController();
      const stop = onStopSignal(() => abort.abort(), ['SIGINT', 'SIGTERM'], { startsProcesses: false });
      try {
        await followRuns(store, query, runs, {
          signal: abort.signal,
          onRun: (run) => write(io.stdout, values.json ? JSON.stringify(run) : rowOf(run, style).join('  ')),
        });
      } finally {
        stop();
      }
    }
    return EXIT_OK;
  });
}

/** `birdie logs show RUN_ID`: one run with its messages (read from the checkpoints it references), calls and answer. */
export async function logsShowCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const id = runId(positionals[0]!);
  return withUserStore(io, values, false, async (store, userId) => {
    const run = await getRun(store, id, userId);
    const messages = await runMessages(store, run).catch(() => undefined);
    if (values.json) {
      const { messageJson } = await import('../render/json-events.js');
      write(
        io.stdout,
        JSON.stringify({
          ...run,
          ...(messages ? { messages: messages.map((m) => messageJson(m as never)) } : {}),
        }),
      );
      return messages ? EXIT_OK : EXIT_RUN;
    }
    const style = styler(io.stdout, io.env);
    io.stdout.write(
      table(
        [rowOf(run, style)],
        HEADER.map((h) => style('bold', h)),
      ),
    );
    if (run.parentRunId !== undefined) write(io.stdout, style('dim', `part of run ${run.parentRunId}`));
    const { formatHistory } = await import('@birdie/terminal/history');
    if (messages) io.stdout.write(formatHistory(messages, style) || 'No messages.\n');
    else
      write(
        io.stderr,
        `birdie: the messages of run ${run.id} cannot be read (its session's history is gone or damaged)`,
      );
    if (run.notices.length > 0) {
      // What MCP servers said during the run, at their level (`logs show --json` has them too).
      const loud = new Set(['warning', 'error', 'critical', 'alert', 'emergency']);
      write(io.stdout, style('bold', 'MCP notices:'));
      for (const n of run.notices)
        write(
          io.stdout,
          `  ${n.at.toISOString().slice(11, 19)} ${style(loud.has(n.level) ? 'yellow' : 'dim', n.level.padEnd(9))} ${terminalText(n.server)}: ${terminalText(n.text)}`,
        );
    }
    // What a model, a tool or an MCP server wrote is shown as text (see terminal-text.ts).
    if (run.answer) write(io.stdout, `${style('bold', 'answer:')} ${terminalText(run.answer)}`);
    if (run.error) write(io.stdout, `${style('red', 'error:')} ${terminalText(run.error)}`);
    return messages ? EXIT_OK : EXIT_RUN;
  });
}
