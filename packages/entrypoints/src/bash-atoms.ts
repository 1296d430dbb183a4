/**
 * What a piece of bash text can carry into a variable or an evaluating context: the values it expands, the names it
 * spells (an arithmetic context evaluates a variable's value, which may name another variable), and command output.
 * Quotes are transparent here on purpose: arithmetic and `eval` evaluate quoted text too.
 */
export type Atom =
  /** `{name}`: a placeholder's value (marked \u0001 in command text). */
  | { kind: 'placeholder'; name: string }
  /** `$x`, `${x}`, `${x:-…}`: the value of a variable (or of a special parameter such as `$1`, `$@`, `$_`). */
  | { kind: 'var'; name: string }
  /** A bare identifier in literal text: evaluated as a variable by arithmetic, `eval` and `[[ -eq ]]`. */
  | { kind: 'mention'; name: string }
  /** Text that may spell any variable's name: concatenated expansions, `${x:1}`, `$'\x6d'`, `${!x}`. */
  | { kind: 'names' }
  /** The output of a command substitution (marked \u0004 in command text): what its body referenced. */
  | { kind: 'output'; inner: Atom[] };

/** Marks in command text: a value (a placeholder, or an expansion of a variable that holds one), and output. */

export const PLACEHOLDER_MARK = '\u0001';
export const SUBSTITUTION_MARK = '\u0004';

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const SPECIAL = /[@*#?$!0-9_-]/;
/** Parameter operators whose result is the value (or the word) as it is, not a piece cut out of it. */
const WHOLE_VALUE_OPERATOR = /^(:?[-=?+])/;

interface Lexed {
  atoms: Atom[];
  /** Whether an expansion stands next to identifier text or another expansion. */
  concatenated: boolean;
}

/**
 * The atoms of `text`. `marks` says what each \u0001 stands for, in order; `outputs` gives the atoms of each command
 * substitution body that was replaced by \u0004.
 */
export function atomsOf(text: string, marks: readonly Atom[] = [], outputs: readonly Atom[][] = []): Atom[] {
  const cursor = { mark: 0, output: 0 };
  const { atoms, concatenated } = lex(text, marks, outputs, cursor);
  if (concatenated) atoms.push({ kind: 'names' });
  return atoms;
}

function lex(
  text: string,
  marks: readonly Atom[],
  outputs: readonly Atom[][],
  cursor: { mark: number; output: number },
): Lexed {
  const atoms: Atom[] = [];
  let concatenated = false;
  // What the previous meaningful character was: 'ident' literal, 'exp' expansion, 'other'.
  let before = 'other' as 'ident' | 'exp' | 'other';
  const expansion = (found: Atom[]) => {
    atoms.push(...found);
    if (before !== 'other') concatenated = true;
    before = 'exp';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1] ?? '';
    if (ch === PLACEHOLDER_MARK) {
      const mark = marks[cursor.mark++];
      expansion([mark ?? { kind: 'names' }]);
      i += 1;
    } else if (ch === SUBSTITUTION_MARK) {
      expansion([{ kind: 'output', inner: outputs[cursor.output++] ?? [{ kind: 'names' }] }]);
      i += 1;
    } else if (ch === '"' || ch === "'") {
      i += 1; // quotes are transparent (see above)
    } else if (ch === '\\') {
      // `\x` is a literal character; in $'…' an escape can spell any name
      if (IDENT.test(next)) {
        if (before === 'exp') concatenated = true;
        before = 'ident';
      }
      if (/[0-7xuUc]/.test(next) && text.lastIndexOf("$'", i) !== -1) atoms.push({ kind: 'names' });
      i += 2;
    } else if (ch === '`') {
      const close = text.indexOf('`', i + 1);
      const end = close === -1 ? text.length : close;
      expansion([{ kind: 'output', inner: lex(text.slice(i + 1, end), marks, outputs, cursor).atoms }]);
      i = end + 1;
    } else if (ch === '$' && next === '(' && text[i + 2] === '(') {
      const end = balanced(text, i + 1, '(', ')');
      // arithmetic expansion: a number, but its identifiers are evaluated (the caller checks the region)
      atoms.push(...lex(text.slice(i + 3, end - 1), marks, outputs, cursor).atoms);
      expansion([]);
      i = end + 1;
    } else if (ch === '$' && next === '(') {
      const end = balanced(text, i + 1, '(', ')');
      expansion([{ kind: 'output', inner: lex(text.slice(i + 2, end), marks, outputs, cursor).atoms }]);
      i = end + 1;
    } else if (ch === '$' && next === '[') {
      const end = balanced(text, i + 1, '[', ']');
      atoms.push(...lex(text.slice(i + 2, end), marks, outputs, cursor).atoms);
      expansion([]);
      i = end + 1;
    } else if (ch === '$' && next === '{') {
      const end = balanced(text, i + 1, '{', '}');
      expansion(parameter(text.slice(i + 2, end), marks, outputs, cursor));
      i = end + 1;
    } else if (ch === '$' && IDENT_START.test(next)) {
      let k = i + 1;
      while (k < text.length && IDENT.test(text[k]!)) k += 1;
      expansion([{ kind: 'var', name: text.slice(i + 1, k) }]);
      i = k;
    } else if (ch === '$' && SPECIAL.test(next)) {
      expansion([{ kind: 'var', name: next }]);
      i += 2;
    } else if (IDENT_START.test(ch)) {
      let k = i;
      while (k < text.length && IDENT.test(text[k]!)) k += 1;
      // `16#ff` and `0x1f` are numbers, not names
      const previous = text[i - 1] ?? '';
      if (previous !== '#' && !/[0-9]/.test(previous))
        atoms.push({ kind: 'mention', name: text.slice(i, k) });
      if (before === 'exp') concatenated = true;
      before = 'ident';
      i = k;
    } else {
      if (!IDENT.test(ch)) before = 'other';
      else if (before === 'exp') concatenated = true;
      i += 1;
    }
  }
  return { atoms, concatenated };
}

/** The body of `${…}`: which variable it reads, and what its subscript, offset or word contain. */
function parameter(
  body: string,
  marks: readonly Atom[],
  outputs: readonly Atom[][],
  cursor: { mark: number; output: number },
): Atom[] {
  const { prefix, name, rest } = splitParameter(body);
  const inner = lex(rest, marks, outputs, cursor).atoms;
  if (prefix === '#' && name !== '') return inner; // a length is a number
  // `${!x}` is the value of whichever variable x names: possibly any of them
  if (prefix === '!') return [{ kind: 'var', name: '@' }, { kind: 'names' }, ...inner];
  const value: Atom[] = name === '' ? [] : [{ kind: 'var', name }];
  // `${x:1}`, `${x#a}`, `${x/a/b}`, `${x^^}`, `${x@…}` cut or change the value: the result may spell any name
  const afterSubscript = rest.startsWith('[') ? rest.slice(balanced(rest, 0, '[', ']') + 1) : rest;
  if (afterSubscript !== '' && !WHOLE_VALUE_OPERATOR.test(afterSubscript)) value.push({ kind: 'names' });
  return [...value, ...inner];
}

export interface ParameterParts {
  /** `!` (indirection or name list), `#` (length) or ''. */
  prefix: string;
  /** The parameter name: an identifier, digits or a special character; '' when malformed. */
  name: string;
  /** Everything after the name: `[subscript]`, then an operator and its word. */
  rest: string;
}

export function splitParameter(body: string): ParameterParts {
  let prefix = '';
  let k = 0;
  if ((body[0] === '!' || body[0] === '#') && body.length > 1 && !/^[#!][}:=?+-]?$/.test(body)) {
    // `${#}` and `${!}` are special parameters; `${#x}` and `${!x}` have a prefix
    prefix = body[0]!;
    k = 1;
  }
  let end = k;
  if (IDENT_START.test(body[k] ?? '')) {
    while (end < body.length && IDENT.test(body[end]!)) end += 1;
  } else if (/[0-9]/.test(body[k] ?? '')) {
    while (end < body.length && /[0-9]/.test(body[end]!)) end += 1;
  } else if (SPECIAL.test(body[k] ?? '')) {
    end = k + 1;
  }
  return { prefix, name: body.slice(k, end), rest: body.slice(end) };
}

/** Index of the bracket that closes the one at `open` (`text[open]` is the opening bracket). */
export function balanced(text: string, open: number, left: string, right: string): number {
  let depth = 0;
  for (let k = open; k < text.length; k++) {
    const ch = text[k];
    if (ch === '\\') k += 1;
    else if (ch === left) depth += 1;
    else if (ch === right && --depth === 0) return k;
  }
  return text.length;
}
