import type { CompactionRecord } from '@birdie/graph';
import type { History } from '@birdie/runtime/history';
import type { BaseMessage } from '@langchain/core/messages';
import { plural } from './diagnostics.js';
import type { Style } from './style.js';
import { terminalText } from './terminal-text.js';
import { formatArgs } from './tool-output.js';

/**
 * Human, AI and tool messages as the REPL shows them; `limit` keeps the last N human turns. A subagent's conversation
 * (when `subagents` has it) is shown under its `task` call, indented. `answer`, when given, renders an answer's text
 * (the REPL's Markdown rendering in a terminal); without it answers are shown as they were written.
 */
export function formatHistory(
  messages: BaseMessage[],
  style: Style,
  limit?: number,
  subagents?: Map<string, History>,
  compacted?: { compactions: readonly CompactionRecord[]; full: boolean },
  answer?: (text: string) => string,
): string {
  const records = compacted?.compactions ?? [];
  const boundaryAt = (record: CompactionRecord) => {
    const i = messages.findIndex((m) => m.id === record.upTo);
    return i >= 0 ? i : Math.min(record.messages, messages.length) - 1;
  };
  const boundaries = new Map(records.map((r) => [boundaryAt(r), r]));
  const rule = (record: CompactionRecord) =>
    style(
      'dim',
      `── compacted (${record.trigger}, ${record.at.slice(0, 16).replace('T', ' ')}, ${record.model}): the ${plural(record.messages, 'message')} above ${record.messages === 1 ? 'is' : 'are'} sent as a summary ──`,
    );
  const latest = records.at(-1);
  let start = 0;
  const lines: string[] = [];
  if (latest && !compacted?.full && limit === undefined) {
    // What the model is sent now: the latest summary instead of the messages it covers.
    start = boundaryAt(latest) + 1;
    lines.push(
      style(
        'dim',
        `── ${latest.messages} earlier messages, sent as this summary (birdie sessions show --full shows them) ──`,
      ),
      style('dim', terminalText(latest.summary.trim())),
      style('dim', '── end of summary ──'),
    );
  }
  if (limit !== undefined) {
    const humans = messages.flatMap((m, i) => (m.getType() === 'human' ? [i] : []));
    start = humans.length > limit ? humans[humans.length - limit]! : 0;
  }
  for (const [offset, message] of messages.slice(start).entries()) {
    const type = message.getType();
    // Stored messages are data: a tool's output or an answer shows as text, never as terminal sequences.
    const text = terminalText(message.text);
    if (type === 'human') lines.push(`${style('cyan', '›')} ${text.replace(/\n/g, '\n  ')}`);
    else if (type === 'ai') {
      // An answer cut short by Ctrl+C is kept as far as it was shown, and says so.
      const cancelled =
        (message.response_metadata as { cancelled?: boolean } | undefined)?.cancelled === true;
      const shown = text && answer ? answer(text) : text;
      if (shown) lines.push(cancelled ? `${shown} ${style('yellow', '[cancelled]')}` : shown);
      const calls =
        (message as unknown as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> })
          .tool_calls ?? [];
      for (const call of calls) {
        lines.push(
          `${style('magenta', '⚙')} ${style('bold', terminalText(call.name))} ${style('dim', formatArgs(call.args))}`,
        );
        const child = call.id ? subagents?.get(call.id) : undefined;
        if (child) {
          const nested = formatHistory(child.messages, style, undefined, child.subagents).trimEnd();
          lines.push(...nested.split('\n').map((line) => `  ${style('dim', '│')} ${line}`));
        }
      }
    } else if (type === 'tool') {
      const first = text.split('\n')[0] ?? '';
      const status =
        (message as unknown as { status?: string }).status === 'error'
          ? style('red', '✗')
          : style('green', '✓');
      lines.push(
        `${style('dim', '└')} ${status} ${style('dim', first.length > 100 ? `${first.slice(0, 100)}…` : first)}`,
      );
    }
    const record = compacted?.full ? boundaries.get(start + offset) : undefined;
    if (record) lines.push(rule(record));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
