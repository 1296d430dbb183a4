import { VFileMessage } from 'vfile-message';
import { RULES, type RuleId } from './rules.js';
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
  ) {}

  report(ruleId: RuleId, reason: string, start = 0, end?: number): VFileMessage {
    const place = this.source
      ? {
          start: pointAt(this.source, start),
          ...(end !== undefined && end > start ? { end: pointAt(this.source, end) } : {}),
        }
      : { start: { line: 1, column: 1 } };
    const message = createMessage(ruleId, reason, this.file, place);
    if (message.fatal) this.fatal = true;
    this.messages.push(message);
    return message;
  }
}
