// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
/**
 * Hostile argument values for the injection tests. Every payload that could run a command tries to create
 * the marker file (relative to the working directory and at an absolute path), so a successful injection
 * leaves evidence behind.
 */
export const MARKER = 'PWNED';

export function hostileStrings(absoluteMarker: string): string[] {
  const commands = [
    `touch ${MARKER}`,
    `touch ${absoluteMarker}`,
    `echo x>${MARKER}`,
    `: >${absoluteMarker}`,
    `sh -c 'touch ${MARKER}'`,
  ];
  const wrappers = [
    (c: string) => `$(${c})`,
    (c: string) => `\`${c}\``,
    (c: string) => `;${c}`,
    (c: string) => `; ${c};`,
    (c: string) => `&& ${c}`,
    (c: string) => `|| ${c}`,
    (c: string) => `| ${c}`,
    (c: string) => `& ${c} &`,
    (c: string) => `\n${c}\n`,
    (c: string) => `\r\n${c}`,
    (c: string) => `'; ${c}; '`,
    (c: string) => `'$(${c})'`,
    (c: string) => `"; ${c}; "`,
    (c: string) => `"$(${c})"`,
    (c: string) => `\\"; ${c}; \\"`,
    (c: string) => `'"'"'; ${c}; '"'"'`,
    (c: string) => `'\\''; ${c}; '\\''`,
    (c: string) => `$'\\x27'; ${c}`,
    (c: string) => `\${IFS}; ${c}`,
    (c: string) => `\${x:-$(${c})}`,
    (c: string) => `a[$(${c})]`,
    (c: string) => `<(${c})`,
    (c: string) => `>(${c})`,
    (c: string) => `{ ${c}; }`,
    (c: string) => `-c '${c}'`,
    (c: string) => `--rcfile=<(${c})`,
    (c: string) => `x\`${c}\`y`,
    (c: string) => `$((1))$(${c})`,
    (c: string) => `"'\`${c}\`'"`,
    (c: string) => `\\$(${c})`,
    (c: string) => `}}; ${c}; {{`,
    (c: string) => `{0}; ${c}`,
    (c: string) => `$1; ${c}`,
    (c: string) => `"$@"; ${c}`,
    (c: string) => `!!; ${c}`,
    (c: string) => `#\n${c}`,
    (c: string) => `\u00a0; ${c}`,
    (c: string) => `\t${c}`,
  ];
  const injections = commands.flatMap((command) => wrappers.map((wrap) => wrap(command)));

  const plain = [
    '',
    ' ',
    '  two  spaces  ',
    'a b',
    '\t',
    '\n',
    '\n\n',
    '*',
    '?',
    '[a-z]*',
    '.*',
    '~',
    '~root',
    '~/x',
    '-',
    '--',
    '-n',
    '-e',
    '-E',
    '-neE',
    '--version',
    '--help',
    '-rf /',
    '--output=/etc/passwd',
    "'",
    "''",
    '"',
    '""',
    '`',
    '\\',
    '\\\\',
    "\\'",
    '\\"',
    '$',
    '$$',
    '$?',
    '$0',
    '$1',
    '$@',
    '$\u007B1}',
    '$HOME',
    '$\u007BHOME}',
    '$PATH',
    '$(',
    '$((',
    ')',
    '(',
    '{',
    '}',
    '{x}',
    '{{x}}',
    ';',
    '&&',
    '||',
    '|',
    '&',
    '>',
    '>>',
    '<',
    '<<EOF',
    '2>&1',
    '#',
    '# comment',
    '!',
    '!!',
    '!$',
    '%s%s%s%n',
    '%',
    '=',
    'a=b',
    'IFS=x',
    '\x1b[31mred\x1b[0m',
    '\x07\x08\x7f',
    '\x01\x02\x03',
    'ünïcødé',
    '🐦 birdie',
    '日本語のテキスト',
    '\u202eRTL override',
    '\u200bzero width',
    '\ufeffBOM',
    'e\u0301 combining',
    'a'.repeat(4096),
    `${'$(x)'.repeat(2000)}`,
    'x'.repeat(100_000),
    'line1\nline2\nline3',
    'trailing newline\n',
    ' leading space',
    'EOF',
    'birdie',
    '\r',
    '/',
    '..',
    '../../etc/passwd',
    'C:\\Windows',
  ];
  return [...injections, ...plain];
}

/** Values usable as a file name in one directory (for `> {path}`): no '/', no NUL, not '.', '..' or too long. */
export function isFileName(value: string): boolean {
  return (
    value.length > 0 &&
    !value.includes('/') &&
    value !== '.' &&
    value !== '..' &&
    Buffer.byteLength(value) <= 255
  );
}

/**
 * Values that run `touch marker` wherever bash evaluates text: arithmetic (an array subscript runs its `$( … )`),
 * indirection, prompt expansion, a re-parsed compound assignment, or the value used as code or a command.
 */
export function evaluatedPayloads(marker: string): string[] {
  return [
    `a[$(touch ${marker})]`,
    `x[$(touch ${marker})]`,
    `([$(touch ${marker})]=1)`,
    `$(touch ${marker})`,
    `touch ${marker}`,
  ];
}

/**
 * Templates whose placeholder reaches a shell variable that bash later evaluates (issue 12, defect 2): arithmetic,
 * `[[ -eq ]]`, subscripts, offsets, `let`, `declare -i`, `${!x}`, `${x@P}`, `printf -v`, `eval`, `trap`, `source`,
 * an unknown command name, unquoted expansion. With an untyped value each one must be refused at resolve time.
 * Written with the template's brace escaping (`{{` is a literal `{`).
 */
export const VARIABLE_FLOW_TEMPLATES: readonly string[] = [
  // the four from the issue
  'n={n}; echo $(( n + 1 ))',
  'N={n}; head -n "$((N))" -- {file}',
  'n={n}; [[ $n -gt 3 ]]',
  'v={n}; echo "${{!v}}"',
  // arithmetic contexts
  'n={n}; (( n > 1 )); echo ok',
  'n={n}; echo $[ n + 1 ]',
  'n={n}; let "m = n + 1"',
  'n={n}; for (( i = n; i < 1; i++ )); do :; done',
  'n={n}; [[ n -eq 1 ]]',
  'n={n}; [[ "$n" -lt 1 || -z "$n" ]]',
  'n={n}; declare -i m; m=$n',
  'n={n}; declare -i m=n',
  'n={n}; RANDOM=$n',
  'a=(1 2); i={n}; echo "${{a[i]}}"',
  'a=(1 2); i={n}; echo "${{a[$i]}}"',
  'a=(1 2); i={n}; a[$i]=3',
  'a=(1 2); i={n}; a[i]=3',
  's=abc; o={n}; echo "${{s:o}}"',
  's=abc; o={n}; echo "${{s:0:$o}}"',
  'x=(a [{n}]=1)',
  'i={n}; x=(a [i]=1)',
  'a=(1); i={n}; unset "a[i]"',
  // every way a value reaches a variable
  'n+={n}; echo $(( n ))',
  'export n={n}; echo $(( n ))',
  'readonly n={n}; echo $(( n ))',
  'f() {{ local n={n}; echo $(( n )); }}; f',
  'read -r n <<< {n}; echo $(( n ))',
  'read -r n <<< "$(printf %s {n})"; echo $(( n ))',
  'mapfile -t a <<< {n}; echo $(( a[0] ))',
  'for n in {n}; do echo $(( n )); done',
  'f() {{ echo $(( $1 )); }}; f {n}',
  'f() {{ echo $(( $@ )); }}; f {n}',
  'f() {{ local x=$1; echo $(( x )); }}; f {n}',
  'set -- {n}; echo $(( $1 ))',
  'x={n}; y=$x; echo $(( y ))',
  'x={n}; y="${{x}}"; echo $(( y ))',
  'x={n}; y=x; echo $(( y ))',
  'x={n}; printf -v y %s "$x"; echo $(( y ))',
  'x={n}; y=$(printf %s "$x"); echo $(( y ))',
  'printf %s {n} > f.txt; y=$(cat f.txt); echo $(( y ))',
  'x={n}; : "${{y:=$x}}"; echo $(( y ))',
  'x={n}; [[ $x =~ (.*) ]]; echo $(( BASH_REMATCH[1] ))',
  'x={n}; echo "$x" >/dev/null; echo $(( _ ))',
  // names, code and commands
  'x={n}; echo "${{x@P}}"',
  'x={n}; printf -v "$x" %s 1',
  'x={n}; [[ -v $x ]]',
  'x={n}; test -v "$x"',
  'x={n}; unset "$x"',
  'x={n}; declare "$x=1"',
  'x={n}; eval "echo $x"',
  "x={n}; eval 'echo $(( x ))'",
  'x={n}; trap "echo $x" EXIT',
  'x={n}; source /dev/stdin <<< "$x"',
  'x={n}; $x',
  'x={n}; "$x" -c :',
  'x={n}; c=eval; $c "$x"',
  'x={n}; echo `echo $x`',
  // unquoted expansion: split into words and globbed
  'x={n}; echo $x',
  'x={n}; printf "%s\\n" ${{x}}',
  'x={n}; for w in $x; do echo "$w"; done',
];

/** Templates that are safe when the schema makes `n` an integer, with their output for `n: 1` (`file` has lines). */
export const INTEGER_FLOW_TEMPLATES: ReadonlyArray<readonly [template: string, outputForOne: string]> = [
  ['n={n}; echo $(( n + 1 ))', '2\n'],
  ['N={n}; head -n "$((N))" -- {file}', 'line 1\n'],
  ['n={n}; [[ $n -gt 3 ]] && echo big || echo small', 'small\n'],
  ['n={n}; (( n > 1 )); echo ok', 'ok\n'],
  ['n={n}; let "m = n + 1"; echo $m', '2\n'],
  ['a=(1 2); i={n}; echo "${{a[i]}}"', '2\n'],
  ['s=abcdef; o={n}; echo "${{s:o:2}}"', 'bc\n'],
  ['x=(a [{n}]=1); echo "${{x[@]}}"', 'a 1\n'],
  ['echo $(( {n} * 2 ))', '2\n'],
  ['[[ {n} -ge 0 ]] && echo nonnegative', 'nonnegative\n'],
  ['n={n}; echo $n', '1\n'],
];
