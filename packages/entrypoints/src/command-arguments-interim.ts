/**
 * Stand-in for the table of code-taking programs (`code-taking-programs.ts`, issue 28) until it lands: program →
 * options that take code or write files. Replaced by that table on merge.
 */
export const INTERIM_CODE_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    git: ['-c', '--output', '--upload-pack', '--receive-pack', '--exec', '--ext-diff', '--config-env', '-u'],
    find: ['-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprintf', '-fls', '-delete'],
    perl: ['-e', '-E'],
    python: ['-c'],
    python3: ['-c'],
    node: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import'],
    ruby: ['-e'],
    awk: ['-f'],
    sed: ['-i', '--in-place', '-f', '-e'],
    tar: ['--to-command', '--checkpoint-action', '-I', '--use-compress-program', '-f'],
    rsync: ['-e', '--rsh', '--rsync-path'],
    sort: ['-o', '--output', '--compress-program'],
    curl: ['-o', '--output', '-O', '--remote-name', '-K', '--config'],
    wget: ['-O', '--output-document', '-o', '--output-file'],
    tee: [],
    npm: ['--script-shell'],
  }).map(([program, options]) => [program, new Set(options)]),
);
