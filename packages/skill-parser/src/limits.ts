/** Every limit this package enforces, in one place (the README's Limits section lists them). */

/** SKILL.md files larger than this are refused before parsing. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

/**
 * Collections nested deeper than this (a mapping inside a list inside a mapping … counts one per level) are refused
 * before the YAML is composed: the `yaml` package and everything downstream (zod, `JSON.stringify`, the tool adapters)
 * walk values recursively, and a few kilobytes of `[[[[…` would otherwise end in a stack overflow. A tool schema uses a
 * handful of levels.
 */
export const MAX_YAML_DEPTH = 64;

/**
 * How many times the nodes behind one anchor may be copied by aliases (the `yaml` package's `maxAliasCount`): a few
 * lines of nested aliases (a "billion laughs") would otherwise expand to gigabytes.
 */
export const MAX_YAML_ALIAS_COUNT = 50;

/**
 * More setext headings (a line of text underlined by `---` or `===`) than this and the body is not parsed: micromark
 * resolves each one in time proportional to everything parsed before it, so a file made of them costs the square of
 * their number (a few thousand take minutes).
 */
export const MAX_SETEXT_HEADINGS = 200;

/**
 * Headings longer than this (in source characters) are taken as written, markup and all: resolving inline markup costs
 * quadratic time in micromark for runs of emphasis markers, and nests as deep as they do. So a heading that hides the
 * word "Tools" in a thousand characters of markup is not a Tools heading; real ones are a few characters long.
 */
export const MAX_INLINE_HEADING = 1000;

/** Resource listing limits: folders deeper than this, and files beyond this count, are not listed. */
export const MAX_RESOURCE_DEPTH = 6;
export const MAX_RESOURCES = 500;
