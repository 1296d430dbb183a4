/**
 * Which command a placeholder is an argument of. Quoting keeps a value one word, but some bash builtins
 * evaluate their arguments as code or as variable names (whose array subscripts are arithmetic, and
 * arithmetic runs `$( … )`): a value there would run. Those positions are refused, as is the command name
 * itself, which would let the model choose the program (that is what the raw `{command}` template is for).
 */

/** Words that introduce the real command. */
export const PREFIXES: ReadonlySet<string> = new Set([
  '!',
  '{',
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
  'time',
  'exec',
  'command',
  'builtin',
  'nohup',
  'env',
  'sudo',
  'coproc',
]);

/** Builtins that treat an argument as code (or as a name whose subscript is evaluated). */
const EVALUATING = new Set([
  'let',
  'eval',
  'trap',
  'source',
  '.',
  'read',
  'compgen',
  'complete',
  'bind',
  'fc',
  'mapfile',
  'readarray',
  'enable',
  // name arguments: an array element's subscript is arithmetic (`unset 'a[$(cmd)]'` runs cmd)
  'unset',
  'getopts',
]);

/** Builtins that take NAME or NAME=value: only the value side may hold a placeholder. */
const DECLARING = new Set(['declare', 'typeset', 'local', 'readonly', 'export']);

/**
 * At the top level `declare x="$v"` re-parses a value like `([$(cmd)]=1)` as a compound array assignment
 * when x is (or is declared as) an array, and whether it is cannot be known from the template.
 */
const REPARSING = new Set(['declare', 'typeset']);

const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;
const REDIRECT = /^(\d*|&)(<|>|>>|<<<|>&|<&|>\|)/;
const REDIRECT_ONLY = /^(\d*|&)(<|>|>>|<<<|>&|<&|>\|)$/;

/**
 * `command` is the source text of the current simple command up to the placeholder (quoted parts included,
 * other placeholders marked with \u0001). Returns why the placeholder may not stand there, or undefined.
 */
export function commandPositionProblem(
  command: string,
  name: string,
  attributed: ReadonlySet<string> = new Set(),
): string | undefined {
  // A line continuation vanishes before bash reads words: `ev\<newline>al` is `eval`.
  command = command.replace(/\\\n/g, '');
  const words = command.split(/[ \t\n]+/);
  const partial = unquote(words.pop() ?? '');
  const complete = words.filter(Boolean).map(unquote);

  let k = 0;
  while (k < complete.length) {
    const word = complete[k]!;
    if (
      PREFIXES.has(word) ||
      ASSIGNMENT.test(word) ||
      (k > 0 && PREFIXES.has(complete[k - 1]!) && word.startsWith('-'))
    ) {
      k += 1;
    } else if (REDIRECT.test(word)) {
      k += REDIRECT_ONLY.test(word) ? 2 : 1;
    } else if (word === 'function') {
      k += 2; // `function NAME { … }`: the body's first command comes after the name
    } else if (k > 0 && complete[k - 1] === 'coproc' && complete[k + 1] === '{') {
      k += 1; // `coproc NAME { … }`
    } else break;
  }
  const rest = complete.slice(k);
  const ph = `{${name}}`;

  if (/^[A-Za-z_]\w*\[[^\]]*$/.test(partial) || openSubscript(command)) {
    return `${ph} inside an array subscript: bash evaluates subscripts as arithmetic, which runs code`;
  }
  const assigned = /^([A-Za-z_]\w*)(\[[^\]]*\])?\+?=/.exec(partial)?.[1];
  const attributedProblem =
    assigned !== undefined && attributed.has(assigned)
      ? `${ph} assigned to '${assigned}', an integer, nameref, prompt or startup-file variable: bash evaluates what is assigned to it`
      : undefined;
  if (rest.length === 0) {
    if (ASSIGNMENT.test(partial) || REDIRECT.test(partial)) return attributedProblem;
    return `${ph} as (part of) the command name would let the argument choose the program; use the raw {command} template for that`;
  }
  const first = rest[0]!;
  if (EVALUATING.has(first)) return `${ph} is an argument of '${first}', which evaluates it as code`;
  if (DECLARING.has(first)) {
    const flags = rest.slice(1).filter((w) => w.startsWith('-') || w.startsWith('+'));
    if (flags.some((f) => /[in]/.test(f))) return `${ph} in '${first}' with -i/-n: bash evaluates the value`;
    if (flags.some((f) => /[aA]/.test(f)))
      return `${ph} in '${first}' with -a/-A: bash may parse the value as an array assignment with subscripts`;
    if (!ASSIGNMENT.test(partial))
      return `${ph} as a variable name of '${first}': bash evaluates array subscripts in names`;
    if (REPARSING.has(first)) {
      return `${ph} in '${first}': bash may parse the value as an array assignment with subscripts; assign it plainly (x=${ph}) or with local`;
    }
  }
  if (first === 'printf' && (rest.includes('-v') || partial.startsWith('-v')))
    return `${ph} with 'printf -v', which evaluates variable names`;
  if (
    first === 'printf' &&
    rest.slice(1).every((w) => w.startsWith('-') && w !== '--') &&
    (partial === '' || partial.startsWith('-'))
  ) {
    return `${ph} where printf still reads options: a value '-vNAME' would assign to NAME, evaluating its subscript; write printf -- … or printf '%s' ${ph}`;
  }
  if (
    (first === 'test' || first === '[') &&
    partial === '' &&
    rest.length > 1 &&
    rest.at(-1)!.includes('\u0001')
  ) {
    // `test "$a" "$b"` with a='-v' tests the variable named by b, evaluating its subscript; `!` or '(' from a
    // value shift the grammar the same way. A literal operator between two values keeps them operands.
    return `${ph} right after another value in '${first}': the first value could be read as an operator such as -v; put a literal operator between them (e.g. [ {a} = {b} ]) or use [[ … ]]`;
  }
  if ((first === 'test' || first === '[') && (rest.includes('-v') || rest.includes('-R'))) {
    return `${ph} in '${first} -v': bash evaluates variable names`;
  }
  return attributedProblem;
}

/**
 * Bash's own variables whose assigned value is code: integer ones evaluate it as arithmetic (`RANDOM`, `OPTIND`, …),
 * prompt strings are expanded with command substitution (`PS4` under `set -x`), and `BASH_ENV`/`ENV` name a file a
 * child bash sources.
 */
const EVALUATED_VARIABLES = [
  'RANDOM',
  'SRANDOM',
  'OPTIND',
  'HISTCMD',
  'SECONDS',
  'LINENO',
  'PS0',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
];

/**
 * Names the template gives the integer (-i) or nameref (-n) attribute anywhere: a later plain assignment to them
 * (`n={v}`, `n+={v}`, `export n={v}`) evaluates the value as arithmetic, or assigns through a reference.
 */
export function attributedNames(text: string): Set<string> {
  const names = new Set<string>(EVALUATED_VARIABLES);
  const declaration =
    /(?:^|[\s;&|(){}])(?:declare|typeset|local|readonly|export)((?:[ \t]+[-+][A-Za-z]+)+)([^;&|\n)]*)/g;
  for (let match = declaration.exec(text); match; match = declaration.exec(text)) {
    if (!/[-+][A-Za-z]*[in]/.test(match[1]!)) continue;
    for (const word of match[2]!.split(/[ \t]+/)) {
      const name = /^["']?([A-Za-z_]\w*)/.exec(word)?.[1];
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * A word that starts `name[` and whose brackets are still open where the placeholder stands: bash reads
 * `a[ x {i} ]=1` as one assignment word (spaces and all), and a subscript is arithmetic.
 */
function openSubscript(command: string): boolean {
  const start = /(^|[ \t\n])[A-Za-z_]\w*\[/g;
  for (let match = start.exec(command); match; match = start.exec(command)) {
    let depth = 0;
    for (let k = match.index + match[0].length - 1; k < command.length; k++) {
      if (command[k] === '[') depth += 1;
      else if (command[k] === ']') depth -= 1;
      if (depth === 0) break;
    }
    if (depth > 0) return true;
  }
  return false;
}

/** The word as bash sees it after quote removal: `\eval`, `e'v'al` and `$'eval'` are all `eval`. */
function unquote(word: string): string {
  return word
    .replace(/\$(?=["'])/g, '')
    .replace(/\\(.)/g, '$1')
    .replace(/["']/g, '')
    .replace(/^\$/, '');
}
