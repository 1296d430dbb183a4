import { commandPositionProblem } from './bash-command.js';
import { EntrypointError } from './errors.js';
import { type TemplatePart, parseTemplate, placeholderNames } from './template.js';

/**
 * Where a placeholder stands decides how the positional parameter is spelled. Contexts in which even a
 * quoted expansion is evaluated again (arithmetic, `${…}` subscripts) or cannot be expanded at all
 * (backticks, quoted here-documents) are refused at resolve time.
 */
type Context =
  | 'unquoted' // top level, `$( … )`, `( … )`
  | 'test' // `[[ … ]]`
  | 'double' // "…" and $"…"
  | 'single' // '…'
  | 'ansi' // $'…'
  | 'backtick'
  | 'param' // ${…}
  | 'arith' // $(( … )), (( … ))
  | 'arith-bracket' // $[ … ]
  | 'heredoc'
  | 'heredoc-quoted'
  | 'comment';

interface Frame {
  context: Context;
  /** Paren/brace depth inside the frame, to find its closing token. */
  depth: number;
  /** `$(`: closes on `)`; plain `(`-subshells are tracked through depth instead. */
  closesOnParen?: boolean;
  /** Here-document delimiter and whether leading tabs are stripped. */
  delimiter?: string;
  stripTabs?: boolean;
  /** `[[ … ]]`: source text, checked for arithmetic operators when the test closes. */
  text?: string;
  placeholders?: string[];
  /** Unquoted-like frames: source of the current simple command so far, to see what a placeholder feeds. */
  command?: string;
  /** Open `case … esac` statements: their patterns end in an unbalanced ')'. */
  cases?: number;
}

type Item = string | { name: string; offset: number };

export interface CompiledBash {
  script: string;
  /** Placeholder names in positional order: `names[0]` is `$1`. */
  names: string[];
}

const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>', '']);

export function compileBashTemplate(template: string): CompiledBash {
  const where = `bash:${template}`;
  const parts = parseTemplate(template, where);
  const names = placeholderNames(parts);
  return { script: emit(toItems(parts), names, where), names };
}

function toItems(parts: readonly TemplatePart[]): Item[] {
  const items: Item[] = [];
  for (const part of parts) {
    if (part.kind === 'text') items.push(...part.text);
    else items.push({ name: part.name, offset: part.offset });
  }
  return items;
}

function emit(items: readonly Item[], names: readonly string[], where: string): string {
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
        const problem = commandPositionProblem(owner.command, item.name);
        if (problem) fail(problem);
      }
      if (owner?.command !== undefined) owner.command += '\u0001';
      out += placeholder(item, frame, names.indexOf(item.name) + 1, prev, fail);
      if (frame.placeholders) frame.placeholders.push(item.name);
      prev = 'x';
      i += 1;
      continue;
    }

    const ctx = frame.context;
    let consumed = 1;
    if (frame.text !== undefined) frame.text += item;

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
    if (owner?.command !== undefined) {
      if (!stack.includes(owner)) {
        const outer = commandOwner(stack);
        if (outer?.command !== undefined) outer.command += text;
      } else if (top() === owner && isSeparator(text, prev, charAt(i + consumed))) owner.command = '';
      else owner.command += text;
    }
    out += text;
    prev = text.at(-1) ?? prev;
    i += consumed;
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

/** The innermost frame in which commands are parsed (top level, `$( … )`). */
function commandOwner(stack: readonly Frame[]): Frame | undefined {
  for (let k = stack.length - 1; k >= 0; k--) if (stack[k]!.command !== undefined) return stack[k];
  return undefined;
}

/** Characters that end a simple command; `&` in `&>`, `>&`, `<&` is part of a redirection instead. */
function isSeparator(text: string, prev: string, next: string): boolean {
  if (text === '&') return prev !== '>' && prev !== '<' && next !== '>';
  return text === ';' || text === '|' || text === '\n' || text === '(' || text === ')';
}

function unquotedLike(context: Context): boolean {
  return context === 'unquoted' || context === 'test';
}

function describe(context: Context): string {
  const names: Record<Context, string> = {
    unquoted: '$( … ) or ( … )',
    test: '[[ … ]]',
    double: '" quote',
    single: "' quote",
    ansi: "$' quote",
    backtick: '` quote',
    param: '$\u007B … }',
    arith: '(( … ))',
    'arith-bracket': '$[ … ]',
    heredoc: 'here-document',
    'heredoc-quoted': 'here-document',
    comment: 'comment',
  };
  return names[context];
}

function lineEnd(items: readonly Item[], from: number): number {
  for (let k = from; k < items.length; k++) {
    const it = items[k]!;
    if (typeof it !== 'string') return -1;
    if (it === '\n') return k;
  }
  return items.length;
}

/** A backslash takes the next character with it; a backslash before a placeholder is ambiguous. */
function backslash(items: readonly Item[], i: number, fail: (m: string) => never): number {
  const next = items[i + 1];
  if (next !== undefined && typeof next !== 'string') {
    fail(`a backslash right before {${next.name}} would escape the quoting of the value`);
  }
  return next === undefined ? 1 : 2;
}

function dollar(items: readonly Item[], i: number, stack: Frame[], ctx: Context): number | undefined {
  const at = (k: number) => (typeof items[i + k] === 'string' ? (items[i + k] as string) : '');
  const inUnquoted = unquotedLike(ctx);
  if (at(1) === '(' && at(2) === '(') {
    stack.push({ context: 'arith', depth: 0 });
    return 3;
  }
  if (at(1) === '(') {
    stack.push({ context: 'unquoted', depth: 0, closesOnParen: true, command: '' });
    return 2;
  }
  if (at(1) === '[') {
    stack.push({ context: 'arith-bracket', depth: 0 });
    return 2;
  }
  if (at(1) === '{') {
    stack.push({ context: 'param', depth: 0 });
    return 2;
  }
  if (inUnquoted && at(1) === "'") {
    stack.push({ context: 'ansi', depth: 0 });
    return 2;
  }
  if (inUnquoted && at(1) === '"') {
    stack.push({ context: 'double', depth: 0 });
    return 2;
  }
  return undefined;
}

function unquoted(
  items: readonly Item[],
  i: number,
  stack: Frame[],
  pending: Frame[],
  prev: string,
  fail: (m: string) => never,
): number {
  const at = (k: number) => (typeof items[i + k] === 'string' ? (items[i + k] as string) : '');
  const frame = stack[stack.length - 1]!;
  const item = at(0);
  const wordStart = WORD_BREAK.has(prev);
  if (item === "'") stack.push({ context: 'single', depth: 0 });
  else if (item === '"') stack.push({ context: 'double', depth: 0 });
  else if (item === '#' && wordStart) stack.push({ context: 'comment', depth: 0 });
  else if (item === '(' && at(1) === '(' && wordStart) {
    stack.push({ context: 'arith', depth: 0 });
    return 2;
  } else if (item === '[' && at(1) === '[' && wordStart && WORD_BREAK.has(at(2))) {
    stack.push({ context: 'test', depth: 0, text: '', placeholders: [] });
    return 2;
  } else if (frame.context === 'test' && item === ']' && at(1) === ']' && wordStart) {
    stack.pop();
    if (frame.placeholders!.length > 0 && /(^|\s)-(eq|ne|lt|le|gt|ge|v|R)(\s|$)/.test(frame.text!)) {
      fail(
        `{${frame.placeholders![0]}} inside [[ … ]] with an arithmetic comparison or -v: bash evaluates such operands as code; compare inside the command instead`,
      );
    }
    return 2;
  } else if (wordStart && (peekWord(at, 'case') || peekWord(at, 'esac'))) {
    frame.cases = Math.max(0, (frame.cases ?? 0) + (item === 'c' ? 1 : -1));
    return 4;
  } else if (item === '(') frame.depth += 1;
  else if (item === ')') {
    if (frame.depth > 0) frame.depth -= 1;
    else if (frame.cases) {
      // the end of a case pattern
    } else if (frame.closesOnParen) stack.pop();
    else fail("unbalanced ')'");
  } else if (item === '<' && at(1) === '<' && at(2) !== '<') {
    return heredoc(items, i, pending, fail);
  }
  return 1;
}

function peekWord(at: (k: number) => string, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (at(k) !== word[k]) return false;
  return WORD_BREAK.has(at(word.length));
}

/** Reads `<<[-] word`; the body starts after the next unquoted newline. */
function heredoc(items: readonly Item[], i: number, pending: Frame[], fail: (m: string) => never): number {
  let k = i + 2;
  const stripTabs = items[k] === '-';
  if (stripTabs) k += 1;
  while (items[k] === ' ' || items[k] === '\t') k += 1;
  let word = '';
  let quoted = false;
  while (k < items.length) {
    const it = items[k]!;
    if (typeof it !== 'string') fail(`{${it.name}} cannot be a here-document delimiter`);
    if (WORD_BREAK.has(it as string)) break;
    if (it === '"' || it === "'" || it === '\\') quoted = true;
    else word += it;
    k += 1;
  }
  if (!word) fail("'<<' without a here-document delimiter");
  pending.push({ context: quoted ? 'heredoc-quoted' : 'heredoc', depth: 0, delimiter: word, stripTabs });
  return k - i;
}

function placeholder(
  item: { name: string },
  frame: Frame,
  index: number,
  prev: string,
  fail: (m: string) => never,
): string {
  const ref = `\${${index}}`;
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
