import type { Atom } from './bash-atoms.js';
import type { Region } from './bash-command-flow.js';
import { type Flow, isTainted, type Taint } from './bash-flow.js';
import { mergeExposure, type OptionExposure } from './bash-options.js';

/** A place where a value would not stay data; `offset` is into the template. */
export interface Problem {
  message: string;
  offset: number;
}

/** A region whose atoms are read as values (`${!x}` names a variable by x's value), not evaluated. */
export type CheckedRegion = Region & { value?: boolean };

/**
 * What one scan of a template finds: the problems, the run-time checks its placeholders need (option exposure, the
 * integer check), and the judgement of the places where bash evaluates text.
 */
export class Findings {
  readonly problems: Problem[] = [];
  readonly options = new Map<string, OptionExposure>();
  /** Placeholders whose value reaches arithmetic: checked to be a plain decimal integer when the tool runs. */
  readonly integers = new Set<string>();

  constructor(
    readonly flow: Flow,
    readonly integer: (name: string) => boolean,
  ) {}

  report(message: string, offset: number): void {
    this.problems.push({ message, offset });
  }

  /** The placeholders behind `taint` stand where a command reads options or operators. */
  expose(taint: Taint, exposure: OptionExposure): void {
    for (const source of taint.sources)
      this.options.set(source, mergeExposure(this.options.get(source), exposure));
  }

  /** What a nested scan (the literal code of `eval`, `trap`, `bash -c`) found, reported at that code. */
  absorb(
    nested: {
      problems: readonly Problem[];
      options: ReadonlyMap<string, OptionExposure>;
      integers: ReadonlySet<string>;
    },
    where: string,
    offset: number,
  ): void {
    for (const problem of nested.problems) this.report(`in the code of ${where}: ${problem.message}`, offset);
    for (const [name, exposure] of nested.options)
      this.options.set(name, mergeExposure(this.options.get(name), exposure));
    for (const name of nested.integers) this.integers.add(name);
  }

  /** Every source is a placeholder the schema makes an integer: fine in arithmetic once checked at run time. */
  allInteger(taint: Taint): boolean {
    return !taint.opaque && !taint.output && taint.sources.size > 0 && [...taint.sources].every(this.integer);
  }

  addIntegers(taint: Taint): void {
    for (const source of taint.sources) this.integers.add(source);
  }

  /** A place where bash evaluates text: refused when it can reach a value, unless all of it is a schema integer. */
  region(region: CheckedRegion): void {
    if (region.kind === 'source') {
      this.report(
        `'${region.where}' runs a file in the template's own shell, where $1, $2 … hold the values and every variable is visible: what it does with them cannot be followed; run it as a program (bash FILE) or drop it`,
        region.offset,
      );
      return;
    }
    const atoms = region.atoms.filter((atom) => atom.kind !== 'placeholder'); // placeholders are checked where they stand
    if (atoms.length === 0) return;
    const taint = this.flow.taintOf(atoms, !region.value);
    if (!isTainted(taint) && !taint.output) return;
    if (region.kind === 'arithmetic' && this.allInteger(taint)) {
      this.addIntegers(taint);
      return;
    }
    const what = region.kind === 'arithmetic' ? 'as arithmetic' : 'as code or as a variable name';
    const fix =
      region.kind === 'arithmetic'
        ? `; declare ${[...taint.sources].map((s) => `{${s}}`).join(', ') || 'the value'} as an integer in the tool's schema (type: integer), or keep the value out of arithmetic`
        : '';
    this.report(
      `${region.where} evaluates ${this.culprits(atoms, region.value === true)} ${what}, and it can hold ${this.describe(taint)}: bash runs the $( … ) in a value such as a[$(cmd)] there${fix}`,
      region.offset,
    );
  }

  /** What a variable may hold, for messages: `{path}`, or that it may hold anything. */
  describe(taint: Taint): string {
    return describeTaint(taint);
  }

  /** The variables of `atoms` that hold a value, for messages. */
  private culprits(atoms: readonly Atom[], value: boolean): string {
    const names = new Set<string>();
    for (const atom of atoms) {
      if (atom.kind === 'var' || atom.kind === 'mention') {
        const taint = value ? this.flow.valueOf(atom.name) : this.flow.evaluationOf(atom.name);
        if (isTainted(taint) || taint.output)
          names.add(/^[0-9@*]$/.test(atom.name) ? `$${atom.name}` : atom.name);
      } else if (atom.kind === 'output') names.add('$( … )');
      else if (atom.kind === 'names') names.add('a name spelled at run time');
    }
    return names.size > 0 ? [...names].map((n) => `'${n}'`).join(', ') : 'its text';
  }
}

/** What a variable may hold, for messages: `{path}`, or that it may hold anything. */
export function describeTaint(taint: Taint): string {
  const parts = [...taint.sources].map((s) => `{${s}}`);
  if (taint.opaque) parts.push('anything (text read, printed or assigned at run time)');
  else if (taint.output && parts.length === 0) parts.push('the output of a command');
  return parts.join(', ');
}
