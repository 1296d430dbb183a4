import { BASH_INTEGER_VARIABLES } from './env-name-policy.js';

/**
 * Bash's own variables that act on a value (`PATH`, `PS4`, `BASH_ENV` …) are not here: env-name-policy.ts decides
 * every name a value may reach, and bash-environment.ts follows values into them.
 */
const BUILT_IN: ReadonlyMap<string, 'integer' | 'code'> = new Map(
  [...BASH_INTEGER_VARIABLES].map((name) => [name, 'integer'] as const),
);

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
