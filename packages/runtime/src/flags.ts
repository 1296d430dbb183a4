/**
 * The options a front end passes through from its user, by their command-line names (`user`, `cwd`, `approval`,
 * `wait`, `agent`, `enable`, `disable`, `sandbox`, `config`, `skills-dir`, `agents-dir`, `trust-workspace`, …): the
 * CLI passes its parsed flags as they are; an embedder passes the few it needs. The README lists each with its meaning.
 */
export type Flags = Record<string, string | boolean | string[] | undefined>;
