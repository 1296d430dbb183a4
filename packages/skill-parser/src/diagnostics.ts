import { VFileMessage } from 'vfile-message';
import { RULES, type RuleId, STANDARD_RULES } from './rules.js';
import { pointAt, type Source } from './source.js';

export const SOURCE = 'skill-parser';

/** Builds one message the way `vfile.message()` does, so `String(message)` prints `file:line:col: reason`. */
export function createMessage(
  ruleId: RuleId,
  reason: string,
  file: string,
  place: {
    start: { line: number; column: number; offset?: number };
    end?: { line: number; column: number; offset?: number };
  },
): VFileMessage {
  const message = new VFileMessage(reason, {
    ruleId,
    source: SOURCE,
    place: place.end ? { start: place.start, end: place.end } : place.start,
  });
  message.file = file;
  message.name = `${file}:${message.name}`;
  const severity = RULES[ruleId].severity;
  message.fatal = severity === 'error' ? true : severity === 'warning' ? false : undefined;
  return message;
}

/** Collects the messages of one file; positions are offsets into its (BOM-less) text. */
export class Reporter {
  readonly messages: VFileMessage[] = [];
  fatal = false;

  constructor(
    readonly file: string,
    readonly source?: Source,
    /** The Agent Skills standard's rules become errors (`STANDARD_RULES`). */
    readonly strict = false,
  ) {}

  report(ruleId: RuleId, reason: string, start = 0, end?: number): VFileMessage {
    const place = this.source
      ? {
          start: pointAt(this.source, start),
          ...(end !== undefined && end > start ? { end: pointAt(this.source, end) } : {}),
        }
      : { start: { line: 1, column: 1 } };
    const message = createMessage(ruleId, reason, this.file, place);
    if (this.strict && STANDARD_RULES.has(ruleId)) message.fatal = true;
    if (message.fatal) this.fatal = true;
    this.messages.push(message);
    return message;
  }
}

/** By position, so a file's messages read top to bottom. */
export function sortMessages(messages: VFileMessage[]): VFileMessage[] {
  return messages.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** The result for a file whose reading or parsing threw: one `parse-failed` error, with the error as its cause. */
export function parseFailed(file: string, error: unknown): { messages: VFileMessage[] } {
  const reporter = new Reporter(file);
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : typeof error;
  const message = reporter.report('parse-failed', `Parsing failed unexpectedly (${reason.split('\n')[0]})`);
  message.cause = error;
  return { messages: reporter.messages };
}

/**
 * Runs `fn`; anything it throws becomes a `parse-failed` message of `file` (the messages so far are dropped), so that
 * a failure nothing foresaw (a bug) costs this one file, never the files around it.
 */
export function guard<T extends { messages: VFileMessage[] }>(
  file: string,
  fn: () => T,
): T | { messages: VFileMessage[] } {
  try {
    return fn();
  } catch (error) {
    return parseFailed(file, error);
  }
}
