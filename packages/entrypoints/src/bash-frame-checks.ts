import { type Atom, atomsOf, splitParameter } from './bash-atoms.js';
import type { Findings } from './bash-findings.js';
import { isTainted } from './bash-flow.js';
import type { Frame } from './bash-scan.js';

const ARITHMETIC_TEST = /(^|\s)-(eq|ne|lt|le|gt|ge)(\s|$)/;
const NAME_TEST = /(^|\s)-[vR](\s|$)/;

/**
 * A frame closed: check what bash evaluates in it. Placeholders in `[[ … ]]` are checked in both passes; the
 * variables of arithmetic, `[[ … ]]`, `${ … }` and backticks only once the flow of values is known (`flowKnown`).
 * `placeholderOffset` finds a placeholder's offset for a message about the whole test.
 */
export function checkClosedFrame(
  findings: Findings,
  frame: Frame,
  start: number,
  flowKnown: boolean,
  placeholderOffset: (name: string, after: number) => number,
): void {
  if (frame.raw === undefined) return;
  if (frame.context === 'test') testPlaceholders(findings, frame, start, placeholderOffset);
  if (!flowKnown) return;
  const raw = frame.raw;
  const marks = frame.rawMarks ?? [];
  switch (frame.context) {
    case 'arith':
      findings.region({
        kind: 'arithmetic',
        atoms: atomsOf(raw.slice(0, -2), marks),
        offset: start,
        where: '(( … ))',
      });
      break;
    case 'arith-bracket':
      findings.region({
        kind: 'arithmetic',
        atoms: atomsOf(raw.slice(0, -1), marks),
        offset: start,
        where: '$[ … ]',
      });
      break;
    case 'test':
      testOperands(findings, raw.slice(0, -2), marks, start);
      break;
    case 'param':
      parameter(findings, raw.slice(0, -1), marks, start);
      break;
    case 'backtick': {
      const atoms = atomsOf(raw.slice(0, -1), marks).filter((a) => a.kind !== 'placeholder');
      const taint = findings.flow.taintOf(atoms, true);
      if (isTainted(taint)) {
        findings.report(
          `backticks that use a variable holding ${findings.describe(taint)}: what runs inside cannot be followed; write $( … )`,
          start,
        );
      }
      break;
    }
  }
}

/** A placeholder in `[[ … ]]`: quoted or not, an operand of -eq is arithmetic and one of -v a name. */
function testPlaceholders(
  findings: Findings,
  frame: Frame,
  start: number,
  placeholderOffset: (name: string, after: number) => number,
): void {
  const text = frame.text!.replace(/\\\n/g, '');
  const placeholders = frame.placeholders ?? [];
  const names = NAME_TEST.test(text);
  const arithmetic = ARITHMETIC_TEST.test(text);
  const refused = placeholders.find((name) => names || (arithmetic && !findings.integer(name)));
  if (refused !== undefined) {
    findings.report(
      `{${refused}} inside [[ … ]] with an arithmetic comparison or -v: bash evaluates such operands as code; compare inside the command instead, or declare it as an integer in the schema (type: integer)`,
      placeholderOffset(refused, start),
    );
  } else if (arithmetic) for (const name of placeholders) findings.integers.add(name);
}

/** Each primary between && and || on its own: `[[ $name == x && $n -gt 3 ]]` compares only n as a number. */
function testOperands(findings: Findings, raw: string, marks: readonly Atom[], start: number): void {
  let markIndex = 0;
  for (const primary of raw.replace(/\\\n/g, '').split(/&&|\|\|/)) {
    const count = [...primary].filter((c) => c === '\u0001').length;
    const primaryMarks = marks.slice(markIndex, markIndex + count);
    markIndex += count;
    if (ARITHMETIC_TEST.test(primary)) {
      const atoms = atomsOf(primary.replace(ARITHMETIC_TEST, ' '), primaryMarks);
      findings.region({ kind: 'arithmetic', atoms, offset: start, where: '[[ … ]]' });
    } else if (NAME_TEST.test(primary)) {
      // `-v name` tests a literal name (fine); `-v a[i]` evaluates i; `-v $x` names whatever x holds
      const operand = primary.replace(/^[\s(!]*-[vR]\s+/, '').trim();
      const subscript = /^[A-Za-z_]\w*\[(.*)\]$/s.exec(operand)?.[1];
      const atoms =
        subscript !== undefined
          ? atomsOf(subscript, primaryMarks)
          : /^[A-Za-z_]\w*$/.test(operand)
            ? []
            : atomsOf(operand, primaryMarks);
      findings.region({ kind: 'code', atoms, offset: start, where: '[[ -v … ]]' });
    }
  }
}

/**
 * `${!prefix@}`, `${!prefix*}` list variable names and `${!a[@]}`, `${!a[*]}` an array's keys: nothing is read
 * through a name. With anything after them (`${!a[@]@P}`, `${!a[*]:-z}`) they are indirections like `${!x}`.
 */
const NAME_LIST = /^(\[[@*]\]|[@*])$/;
/** Transformations that evaluate the text: `@P` expands it as a prompt (running its `$( … )`), `@E` its escapes. */
const EVALUATING_TRANSFORM = /^@([PE])/;

/**
 * `${!x}` names a variable by x's value, `${x@P}` expands it as a prompt (`@E` its escapes), subscripts and offsets
 * are arithmetic.
 */
function parameter(findings: Findings, body: string, marks: readonly Atom[], start: number): void {
  const { prefix, name, rest } = splitParameter(body);
  let cursor = 0;
  const take = (text: string) => {
    const count = [...text].filter((c) => c === '\u0001').length;
    const taken = marks.slice(cursor, cursor + count);
    cursor += count;
    return taken;
  };
  take(body.slice(0, body.length - rest.length));
  const variable: Atom[] = [{ kind: 'var', name }];
  const indirect = prefix === '!' && !NAME_LIST.test(rest);
  if (indirect) {
    const where = `\${!${name}} (a variable named by a value)`;
    findings.region({ kind: 'code', atoms: variable, offset: start, where, value: true });
  }
  let after = rest;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    const subscript = rest.slice(1, close === -1 ? rest.length : close);
    if (subscript !== '@' && subscript !== '*') {
      const atoms = atomsOf(subscript, take(subscript));
      findings.region({ kind: 'arithmetic', atoms, offset: start, where: `\${${name}[…]}` });
    }
    after = close === -1 ? '' : rest.slice(close + 1);
  }
  const transform = EVALUATING_TRANSFORM.exec(after)?.[1];
  if (/^:[^-=?+]/.test(after) || after === ':') {
    const atoms = atomsOf(after.slice(1), take(after));
    findings.region({ kind: 'arithmetic', atoms, offset: start, where: `\${${name}:…}` });
  } else if (transform && indirect) {
    // The variable it reads is named at run time (`y=x`, `for y in x`, `arr=(x)`, a name read from a file): the
    // scanner cannot place it, and any variable may hold a value. Fail closed.
    const what =
      transform === 'P'
        ? `expands the variable that ${name} names as a prompt string, which runs the $( … ) and backticks in it`
        : `expands the backslash escapes of the variable that ${name} names`;
    findings.report(
      `\${!${name}…@${transform}} ${what}; in a template with a value, that variable may hold one: use "\${!${name}}" or "\${!${name}@Q}"`,
      start,
    );
  } else if (transform) {
    findings.region({
      kind: 'code',
      atoms: variable,
      offset: start,
      where:
        transform === 'P'
          ? `\${${name}@P} (prompt expansion, which runs $( … ) and backticks)`
          : `\${${name}@E} (escape expansion)`,
      value: true,
    });
  }
}
