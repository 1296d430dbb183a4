import type { Atom } from './bash-atoms.js';

/**
 * Where a variable's value may come from. `sources` are placeholders; `opaque` means anything (a value read from
 * input, a positional parameter, a name spelled at run time); `output` means the output of a command whose body
 * referenced no value: harmless as data, but still text the template did not write (a file the model wrote, say),
 * so it is refused where bash evaluates text.
 */
export interface Taint {
  readonly sources: ReadonlySet<string>;
  readonly opaque: boolean;
  readonly output: boolean;
}

export const CLEAN: Taint = { sources: new Set(), opaque: false, output: false };
const OPAQUE: Taint = { sources: new Set(), opaque: true, output: false };
const OUTPUT: Taint = { sources: new Set(), opaque: false, output: true };

/**
 * Parameters whose value bash sets from input or from the arguments: the positional parameters are the placeholder
 * values themselves, `$_` is the last word of the previous command, `REPLY`/`MAPFILE` hold what `read`/`mapfile`
 * read, `BASH_REMATCH` what `[[ =~ ]]` matched, `PWD` where a `cd {dir}` went.
 */
export const INPUT_PARAMETERS: ReadonlySet<string> = new Set([
  '@',
  '*',
  '_',
  'REPLY',
  'MAPFILE',
  'BASH_REMATCH',
  'OPTARG',
  'BASH_ARGV',
  'PWD',
  'OLDPWD',
  'DIRSTACK',
  'COMP_WORDS',
  'READLINE_LINE',
]);

export function isTainted(taint: Taint): boolean {
  return taint.opaque || taint.sources.size > 0;
}

export function union(a: Taint, b: Taint): Taint {
  if (b === CLEAN || a === b) return a;
  if (a === CLEAN) return b;
  const sources = b.sources.size === 0 ? a.sources : new Set([...a.sources, ...b.sources]);
  return { sources, opaque: a.opaque || b.opaque, output: a.output || b.output };
}

function same(a: Taint, b: Taint): boolean {
  return a.opaque === b.opaque && a.output === b.output && a.sources.size === b.sources.size;
}

/** Where an assignment stands in the template, and whether it is in the environment of what runs next. */
export interface Site {
  offset: number;
  /** A prefix assignment (`NAME=… cmd`), `env NAME=…`, `export`, `declare -x`, `local -x`. */
  exported: boolean;
}

export interface AssignmentSite extends Site {
  name: string;
  /** What is assigned; empty for `input`. */
  atoms: Atom[];
  /** Set from input (`read`, `mapfile`, `printf -v`, `for x;`): may hold anything. */
  input: boolean;
}

/**
 * Which variables a template's placeholders flow into. Flow-insensitive on purpose: a loop can run a later
 * assignment before an earlier use, and a function body runs wherever it is called.
 */
export class Flow {
  private readonly assignments = new Map<string, Atom[][]>();
  private values = new Map<string, Taint>();
  private evaluated = new Map<string, Taint>();
  /** Set when the template assigns variables whose names are chosen at run time (`read "$v"`, `declare -n`, `eval`). */
  dynamic = false;

  constructor(private readonly placeholders: readonly string[]) {}

  /** Every assignment the template makes, where it stands (see bash-environment.ts). */
  readonly sites: AssignmentSite[] = [];
  /** Names the template exports without assigning them there (`export x`, `declare -x x`). */
  readonly exported = new Set<string>();
  /** `set -a` / `set -o allexport`: every assignment is exported. */
  allExport = false;
  /** Namerefs (`declare -n r=PATH`): the variable each assigns through, null when the template does not name it. */
  readonly namerefs = new Map<string, string | null>();

  assign(name: string, value: Atom[], site?: Site): void {
    const list = this.assignments.get(name);
    if (list) list.push(value);
    else this.assignments.set(name, [value]);
    if (site) this.sites.push({ name, atoms: value, input: false, ...site });
  }

  /** `${!y:=…}`: assigns a variable whose name is y's value, chosen at run time. */
  assignIndirect(value: Atom[], site: Site): void {
    this.dynamic = true;
    this.sites.push({ name: '', atoms: value, input: false, ...site });
  }

  /** A variable that some builtin sets from its input (`read x`, `mapfile a`, `printf -v x`, `getopts o x`). */
  assignFromInput(name: string, site?: Site): void {
    this.assign(name, [{ kind: 'names' }]);
    this.inputs.add(name);
    if (site) this.sites.push({ name, atoms: [], input: true, ...site });
  }

  private readonly inputs = new Set<string>();

  /** Whether the template assigns any variable at all. */
  assigns(): boolean {
    return this.assignments.size > 0 || this.dynamic;
  }

  private readonly literals = new Map<string, string[] | null>();

  /** Records the word a plain assignment gives `name` when it is literal text (`c=grep`), else `undefined`. */
  assignWord(name: string, word: string | undefined): void {
    const list = this.literals.get(name);
    if (word === undefined || list === null) this.literals.set(name, null);
    else if (list) list.push(word);
    else this.literals.set(name, [word]);
  }

  /**
   * The words `name` may hold when `$name` stands as a command name: undefined when the template never assigns it
   * (an environment variable: the user's), null when some assignment is not a literal word.
   */
  commandWords(name: string): readonly string[] | null | undefined {
    if (this.inputs.has(name) || (this.dynamic && this.placeholders.length > 0)) return null;
    return this.literals.get(name);
  }

  /** Computes every variable's taint; call once all assignments are in. */
  solve(): void {
    const values = new Map<string, Taint>();
    const evaluated = new Map<string, Taint>();
    for (let changed = true, rounds = 0; changed && rounds < 50; rounds++) {
      changed = false;
      for (const [name, list] of this.assignments) {
        let value = CLEAN;
        let evaluation = CLEAN;
        for (const atoms of list) {
          value = union(value, this.atomsTaint(atoms, false, values, evaluated));
          evaluation = union(evaluation, this.atomsTaint(atoms, true, values, evaluated));
        }
        if (this.inputs.has(name)) value = union(value, OPAQUE);
        if (!same(value, values.get(name) ?? CLEAN)) changed = true;
        if (!same(evaluation, evaluated.get(name) ?? CLEAN)) changed = true;
        values.set(name, value);
        evaluated.set(name, union(value, evaluation));
      }
    }
    this.values = values;
    this.evaluated = evaluated;
  }

  /** What expanding `$name` yields. */
  valueOf(name: string): Taint {
    return this.lookup(name, false, this.values, this.evaluated);
  }

  /** What evaluating `name` (arithmetic, `eval`) can reach: its value and every variable its text names. */
  evaluationOf(name: string): Taint {
    return this.lookup(name, true, this.values, this.evaluated);
  }

  /** Taint of text made of `atoms`, as data (`evaluate` false) or as evaluated code or arithmetic. */
  taintOf(atoms: readonly Atom[], evaluate: boolean): Taint {
    return this.atomsTaint(atoms, evaluate, this.values, this.evaluated);
  }

  private lookup(
    name: string,
    evaluate: boolean,
    values: Map<string, Taint>,
    evaluated: Map<string, Taint>,
  ): Taint {
    if (this.placeholders.length === 0) return CLEAN;
    // the template can read the copies the script makes of the arguments (`$birdie_1`)
    const copy = /^birdie_([1-9][0-9]*)$/.exec(name);
    const source = copy ? this.placeholders[Number(copy[1]) - 1] : undefined;
    const taint: Taint =
      source === undefined ? CLEAN : { sources: new Set([source]), opaque: false, output: false };
    if (INPUT_PARAMETERS.has(name) || /^[0-9]+$/.test(name) || this.dynamic) return union(taint, OPAQUE);
    return union(taint, (evaluate ? evaluated : values).get(name) ?? CLEAN);
  }

  private atomsTaint(
    atoms: readonly Atom[],
    evaluate: boolean,
    values: Map<string, Taint>,
    evaluated: Map<string, Taint>,
  ): Taint {
    if (this.placeholders.length === 0) return CLEAN;
    let taint = CLEAN;
    for (const atom of atoms) {
      switch (atom.kind) {
        case 'placeholder':
          taint = union(taint, { sources: new Set([atom.name]), opaque: false, output: false });
          break;
        case 'var':
          taint = union(taint, this.lookup(atom.name, evaluate, values, evaluated));
          break;
        case 'mention':
          if (evaluate) taint = union(taint, this.lookup(atom.name, true, values, evaluated));
          break;
        case 'names':
          if (evaluate) taint = union(taint, OPAQUE);
          break;
        case 'output': {
          const inner = this.atomsTaint(atom.inner, true, values, evaluated);
          taint = union(taint, isTainted(inner) ? OPAQUE : OUTPUT);
          break;
        }
      }
    }
    return taint;
  }
}
