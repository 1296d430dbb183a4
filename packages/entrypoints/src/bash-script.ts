import { attributedNames, commandPositionProblem } from './bash-command.js';
import { type OptionExposure, optionExposure } from './bash-options.js';
import { EntrypointError } from './errors.js';
import { type TemplatePart, parseTemplate, placeholderNames } from './template.js';
import {
  backslash,
  commandOwner,
  describe,
  dollar,
  type Frame,
  isSeparator,
  type Item,
  lineEnd,
  unquoted,
  unquotedLike,
} from './bash-scan.js';

export interface CompiledBash {
  script: string;
  /** Placeholder names in positional order: `names[0]` is `$1`. */
  names: string[];
  /** Placeholders standing where their command may read a value as an option (see bash-options.ts). */
  options: Map<string, OptionExposure>;
}

export function compileBashTemplate(template: string): CompiledBash {
  const where = `bash:${template}`;
  const parts = parseTemplate(template, where);
  const names = placeholderNames(parts);
  const text = parts.map((part) => (part.kind === 'text' ? part.text : '\u0001')).join('');
  const attributed = attributedNames(text);
  const options = new Map<string, OptionExposure>();
  const script = argumentPrologue(names.length) + emit(toItems(parts), names, where, attributed, options);
  return { script, names, options };
}

/** The shell variable that holds the value of placeholder number `index` (1-based). */
export function argumentVariable(index: number): string {
  return `birdie_${index}`;
}

/**
 * Copies the positional parameters into variables first: inside a function body `$1` is the function's own
 * argument, and `set --` or `shift` in a template would move them; the copies keep each value where it belongs.
 * A plain assignment neither splits nor re-parses the value.
 */
function argumentPrologue(count: number): string {
  if (count === 0) return '';
  const copies = Array.from({ length: count }, (_, k) => `${argumentVariable(k + 1)}=\${${k + 1}}`);
  return `${copies.join(' ')}; `;
}

function toItems(parts: readonly TemplatePart[]): Item[] {
  const items: Item[] = [];
  for (const part of parts) {
    if (part.kind === 'text') items.push(...part.text);
    else items.push({ name: part.name, offset: part.offset });
  }
  return items;
}

function emit(
  items: readonly Item[],
  names: readonly string[],
  where: string,
  attributed: ReadonlySet<string>,
  options: Map<string, OptionExposure>,
): string {
  const stack: Frame[] = [{ context: 'unquoted', depth: 0, command: '' }];
  const pending: Frame[] = []; // here-documents whose bodies start at the next newline
  let out = '';
  let prev = ''; // previous source character; '' at the start, 'x' after a placeholder
  let lineStart = true;

  const fail = (message: string): never => {
    throw new EntrypointError('bad-template', `${where}: ${message}`);
  };
  const top = () => stack[stack.length - 1]!;
  const charAt = (i: number) => (typeof items[i] === 'string' ? (items[i] as string) : '');

  let i = 0;
  while (i < items.length) {
    const item = items[i]!;
    const frame = top();

    if (frame.context.startsWith('heredoc') && lineStart) {
      const end = lineEnd(items, i);
      if (end !== -1) {
        const line = (items.slice(i, end) as string[]).join('');
        if ((frame.stripTabs ? line.replace(/^\t+/, '') : line) === frame.delimiter) {
          out += line;
          i = end;
          prev = line.at(-1) ?? prev;
          lineStart = false;
          stack.pop();
          continue;
        }
      }
    }
    lineStart = false;

    const owner = commandOwner(stack);
    if (typeof item !== 'string') {
      if (
        owner?.command !== undefined &&
        !frame.context.startsWith('heredoc') &&
        frame.context !== 'comment'
      ) {
        const problem = commandPositionProblem(owner.command, item.name, attributed);
        if (problem) fail(problem);
        const exposure = optionExposure(owner.command);
        // One occurrence under the broad rule makes the broad rule apply to the value.
        if (exposure && options.get(item.name)?.rule !== 'dash') options.set(item.name, exposure);
      }
      // Quotes or $( … ) inside ${ … } do not make a value safe: an offset, length or subscript there is
      // arithmetic, which evaluates the expanded value (and the output of a command substitution) as code.
      if (stack.some((f) => f.context === 'param')) {
        fail(`{${item.name}} inside \${ … }: bash may evaluate it as an arithmetic offset or subscript`);
      }
      if (owner?.command !== undefined) owner.command += '\u0001';
      out += placeholder(item, frame, names.indexOf(item.name) + 1, prev, fail);
      // A quoted value (or a $( … ) output) inside [[ … ]] is still an arithmetic operand of -eq & co.
      for (const f of stack) f.placeholders?.push(item.name);
      prev = 'x';
      i += 1;
      continue;
    }

    const ctx = frame.context;
    let consumed = 1;

    if (ctx === 'comment') {
      if (item === '\n') stack.pop();
    } else if (ctx === 'single') {
      if (item === "'") stack.pop();
    } else if (ctx === 'ansi' || ctx === 'backtick') {
      if (item === '\\') consumed = backslash(items, i, fail);
      else if (item === (ctx === 'ansi' ? "'" : '`')) stack.pop();
    } else if (ctx === 'arith' || ctx === 'arith-bracket') {
      if (item === '(' || item === '[') frame.depth += 1;
      else if (ctx === 'arith' && item === ')' && frame.depth === 0 && charAt(i + 1) === ')') {
        stack.pop();
        consumed = 2;
      } else if (ctx === 'arith-bracket' && item === ']' && frame.depth === 0) stack.pop();
      else if (item === ')' || item === ']') frame.depth -= 1;
    } else if (item === '\\') {
      consumed = backslash(items, i, fail);
    } else if (item === '$' && charAt(i + 1) !== '' && ctx !== 'heredoc-quoted') {
      consumed = dollar(items, i, stack, ctx) ?? 1;
    } else if (item === '`' && ctx !== 'heredoc-quoted' && ctx !== 'param') {
      stack.push({ context: 'backtick', depth: 0 });
    } else if (ctx === 'double') {
      if (item === '"') stack.pop();
    } else if (ctx === 'heredoc' || ctx === 'heredoc-quoted') {
      // only the delimiter line (checked above) ends a here-document body
    } else if (ctx === 'param') {
      if (item === '{') frame.depth += 1;
      else if (item === '}' && frame.depth === 0) stack.pop();
      else if (item === '}') frame.depth -= 1;
      else if (item === '"') stack.push({ context: 'double', depth: 0 });
      else if (item === "'") stack.push({ context: 'single', depth: 0 });
    } else {
      consumed = unquoted(items, i, stack, pending, prev, fail);
    }

    const text = (items.slice(i, i + consumed) as string[]).join('');
    if (frame.text !== undefined) frame.text += text;
    if (owner?.command !== undefined) {
      if (!stack.includes(owner)) {
        const outer = commandOwner(stack);
        if (outer?.command !== undefined) outer.command += text;
      } else if (top() === owner && isSeparator(text, prev, charAt(i + consumed))) owner.command = '';
      else owner.command += text;
    }
    out += text;
    i += consumed;
    // `\x` is part of a word (so `\ #` starts no comment); `\<newline>` vanishes, joining two lines into one
    // (so a here-document body does not start there, and `prev` stays what came before it).
    const escaped = text.length === 2 && text[0] === '\\' && ctx !== 'heredoc-quoted';
    if (escaped && text[1] === '\n') continue;
    prev = escaped ? 'x' : (text.at(-1) ?? prev);
    if (text.endsWith('\n')) {
      lineStart = true;
      if (pending.length > 0 && !top().context.startsWith('heredoc') && unquotedLike(top().context)) {
        // bodies follow in order: push in reverse so the first here-document is on top
        for (const doc of pending.reverse()) stack.push(doc);
        pending.length = 0;
      }
    }
  }

  if (pending.length > 0) fail('here-document without a body');
  if (top().context === 'comment') stack.pop();
  if (stack.length > 1) fail(`unterminated ${describe(top().context)}`);
  return out;
}

function placeholder(
  item: { name: string },
  frame: Frame,
  index: number,
  prev: string,
  fail: (m: string) => never,
): string {
  const ref = `\${${argumentVariable(index)}}`;
  const name = `{${item.name}}`;
  switch (frame.context) {
    case 'unquoted':
    case 'test':
      if (prev === '$') fail(`'$' right before ${name}; write \${{NAME}} for a shell variable`);
      return `"${ref}"`;
    case 'double':
    case 'heredoc':
      if (prev === '$') fail(`'$' right before ${name}; write \${{NAME}} for a shell variable`);
      return ref;
    case 'single':
      return `'"${ref}"'`;
    case 'ansi':
      return `'"${ref}"$'`;
    case 'backtick':
      return fail(`${name} inside backticks; use $( … ) instead`);
    case 'param':
      return fail(`${name} inside \${ … }: bash may evaluate it as an arithmetic subscript`);
    case 'arith':
    case 'arith-bracket':
      return fail(`${name} in an arithmetic context: bash evaluates the value as code there`);
    case 'heredoc-quoted':
      return fail(`${name} inside a quoted here-document, where nothing is expanded`);
    case 'comment':
      return name; // nothing runs in a comment
  }
}
