/** Bash's own integer variables: an assignment to them is evaluated as arithmetic. */
const INTEGER_VARIABLES = ['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS', 'LINENO'];

/**
 * Bash's own variables whose assigned value is code: prompt strings are expanded with command substitution (`PS4`
 * under `set -x`), `BASH_ENV`/`ENV` name a file a child bash sources, `BASH_CMDS` says what program a name runs.
 */
const CODE_VARIABLES = [
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
  // a command name's program and an alias's text
  'BASH_CMDS',
  'BASH_ALIASES',
];

const BUILT_IN: ReadonlyMap<string, 'integer' | 'code'> = new Map([
  ...INTEGER_VARIABLES.map((name) => [name, 'integer'] as const),
  ...CODE_VARIABLES.map((name) => [name, 'code'] as const),
]);

/**
 * Names the template gives the integer (-i) or nameref (-n) attribute anywhere: a later plain assignment to them
 * (`n={v}`, `n+={v}`, `export n={v}`) evaluates the value as arithmetic, or assigns through a reference.
 */
export function attributedNames(text: string): ReadonlyMap<string, 'integer' | 'code'> {
  // most templates declare nothing: they share one map of bash's own variables
  if (!/declare|typeset|local|readonly|export/.test(text)) return BUILT_IN;
  const names = new Map(BUILT_IN);
  const declaration =
    /(?:^|[\s;&|(){}])(?:declare|typeset|local|readonly|export)((?:[ \t]+[-+][A-Za-z]+)+)([^;&|\n)]*)/g;
  for (let match = declaration.exec(text); match; match = declaration.exec(text)) {
    if (!/[-+][A-Za-z]*[in]/.test(match[1]!)) continue;
    const kind = /[-+][A-Za-z]*n/.test(match[1]!) ? 'code' : 'integer';
    for (const word of match[2]!.split(/[ \t]+/)) {
      const name = /^["']?([A-Za-z_]\w*)/.exec(word)?.[1];
      if (name && names.get(name) !== 'code') names.set(name, kind);
    }
  }
  return names;
}
