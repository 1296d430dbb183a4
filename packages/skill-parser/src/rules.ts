import { MAX_SETEXT_HEADINGS, MAX_YAML_ALIAS_COUNT, MAX_YAML_DEPTH } from './limits.js';

/** How bad a rule's finding is: `error` → `fatal: true` (skill refused), `warning` → `false`, `info` → `undefined`. */
export type Severity = 'error' | 'warning' | 'info';

export interface RuleInfo {
  severity: Severity;
  /** What the message means. */
  meaning: string;
  /** What the author should do about it. */
  fix: string;
}

/**
 * Every `ruleId` this package emits (all with `source: 'skill-parser'`), for skill files and agent files alike. The ids
 * are stable: tools and tests may match on them. A skill or agent with any `error` message is not returned.
 */
export const RULES = {
  'file-too-large': {
    severity: 'error',
    meaning: 'The SKILL.md file (or agent file) is over 1 MiB; it was refused before parsing.',
    fix: 'Move long reference material into separate files in the skill folder; they are listed in `resources`. Shorten an agent prompt.',
  },
  'unreadable-file': {
    severity: 'error',
    meaning:
      'The SKILL.md file, the agent file, or the skills or agents folder could not be read (missing, permissions, not a folder, or the file is not a regular file: a named pipe, a device).',
    fix: 'Check the path and its permissions; SKILL.md and agent files must be regular files (a symbolic link to one is fine).',
  },
  'parse-failed': {
    severity: 'error',
    meaning:
      'Reading or parsing this file failed in a way no other rule describes (a defect in the parser). Only this file is refused; the message names the error.',
    fix: 'Report it with the file attached; meanwhile simplify the part of the file the message points to.',
  },
  'missing-frontmatter': {
    severity: 'error',
    meaning: 'The file does not start with a `---` line opening YAML frontmatter.',
    fix: 'Start the file with `---`, the `name:` and `description:` keys, and a closing `---` line.',
  },
  'unclosed-frontmatter': {
    severity: 'error',
    meaning: 'The frontmatter opened by the first `---` line is never closed.',
    fix: 'Add a line with only `---` after the last frontmatter key.',
  },
  'yaml-syntax': {
    severity: 'error',
    meaning:
      'The frontmatter, or a value in a tool block, is not valid YAML. The keys after it are still checked, each on its own.',
    fix: 'Fix the YAML at the reported position (quote values that contain `: ` or start with a special character).',
  },
  'yaml-too-deep': {
    severity: 'error',
    meaning: `The frontmatter or a tool value nests collections (mappings, lists, JSON objects and arrays) more than ${MAX_YAML_DEPTH} levels deep; it is refused before it is read, at the first collection past the limit.`,
    fix: 'Flatten the structure; a tool schema needs a few levels.',
  },
  'yaml-alias-limit': {
    severity: 'error',
    meaning: `YAML aliases copy one anchor's nodes more than ${MAX_YAML_ALIAS_COUNT} times (an alias bomb), or an alias sits inside the node it names (a cycle); reported at the alias.`,
    fix: 'Write the values out instead of using `&anchor` / `*alias`.',
  },
  'too-many-setext-headings': {
    severity: 'error',
    meaning: `The body may hold a \`## Tools\` section and has more than ${MAX_SETEXT_HEADINGS} lines that underline text with \`---\` or \`===\` (setext headings, each costing time in proportion to the whole file); it is refused at the first one past the limit instead of being read for minutes.`,
    fix: 'Write headings with `#` / `##`, and put a blank line before a `---` meant as a horizontal rule.',
  },
  'duplicate-key': {
    severity: 'error',
    meaning: 'A key appears twice in the frontmatter, a mapping inside it, or one tool block.',
    fix: 'Keep one of the two keys.',
  },
  'frontmatter-not-mapping': {
    severity: 'error',
    meaning: 'The frontmatter is valid YAML but not a mapping of keys to values.',
    fix: 'Write the frontmatter as `key: value` lines.',
  },
  'missing-name': {
    severity: 'error',
    meaning:
      'The frontmatter has no `name` (reported at the opening `---`), or `name` has no value (`name:`, `name: ~`; reported at the key).',
    fix: 'Add `name: my-skill` (lower-case letters, digits and hyphens, matching the skill folder or the agent file name).',
  },
  'missing-description': {
    severity: 'error',
    meaning:
      'The frontmatter has no `description` (reported at the opening `---`), or `description` has no value (reported at the key).',
    fix: 'Add a `description:` that says what the skill (or agent) does and when to use it.',
  },
  'invalid-type': {
    severity: 'error',
    meaning:
      'A frontmatter or tool value has the wrong type or an unsupported value (e.g. `tags: 5`, `approval: maybe`, `name:` given as a list or a mapping, `name: ""`; in an agent file `skills: 5`, `tools: [bad name]`, `max_turns: 0`, `progressive: "yes"`, `overlap: sometimes`, `catch_up: maybe`).',
    fix: 'Use the type the message names (string, list of strings, boolean, positive number, …).',
  },
  'invalid-mcp-server': {
    severity: 'error',
    meaning:
      '`mcp_server` is incomplete or inconsistent (no `command` for stdio, no valid `url` for sse/http, unknown transport).',
    fix: 'Declare `transport: stdio` with `command` (and `args`), or `transport: sse | streamable_http` with an http(s) `url`.',
  },
  'invalid-model': {
    severity: 'error',
    meaning:
      "An agent's `model` is not a `vendor:model` string with a known vendor (`openai:gpt-4o-mini`) nor a tier name (`fast`), e.g. a mapping that sets a base URL, a URL, an unknown vendor, or text with blanks. An agent file can only pick a model; where requests go and with which key is the user's configuration.",
    fix: 'Write `model: vendor:model` (a vendor from `MODEL_VENDORS`) or the name of a tier from your config; set base URLs and keys in the config.',
  },
  'forbidden-key': {
    severity: 'error',
    meaning:
      "An agent file sets something only the user's configuration may set: where requests go or with which key (`base_url`, `api_key`, `url`, `headers`, `vendor`, …) or what runs (`command`, `args`, `module`, `entrypoint`, `mcp_server`, `env`, …). The agent is refused.",
    fix: 'Remove the key: pick a model with `model: vendor:model` or a tier, and give tools through `skills`.',
  },
  'invalid-schedule': {
    severity: 'error',
    meaning:
      "An agent's `schedule` is not a cron expression: five fields (minute hour day-of-month month day-of-week), six with seconds first, or a nickname such as `@daily`; the message gives the field that is wrong.",
    fix: 'Write e.g. `schedule: "0 9 * * 1-5"` (09:00 on weekdays); quote it, since `*` starts a YAML alias.',
  },
  'invalid-timezone': {
    severity: 'error',
    meaning: "An agent's `timezone` is not an IANA time zone this Node knows.",
    fix: 'Write a zone such as `Europe/Berlin`, `America/New_York` or `UTC`.',
  },
  'invalid-interval': {
    severity: 'error',
    meaning:
      "An agent's `every` or `debounce` is not a duration (a number of seconds, or `30s`, `15m`, `2h`, `1h30m`, `500ms`, `1d`), or `every` is shorter than 1 second.",
    fix: 'Write e.g. `every: 15m`, `debounce: 2s`.',
  },
  'invalid-watch': {
    severity: 'error',
    meaning:
      "An agent's `watch` is not a path or glob (or a list of them) inside its project: empty, not text, absolute, or with a `..` segment.",
    fix: 'Write paths relative to the project, e.g. `watch: ["docs/**/*.md", "CHANGELOG.md"]`.',
  },
  'missing-prompt': {
    severity: 'warning',
    meaning:
      'An agent has a trigger (`schedule`, `every` or `watch`) but no `prompt`: when triggered it is told only that it was triggered.',
    fix: 'Add `prompt:` saying what to do on each run (for `watch`, the changed paths are appended to it).',
  },
  'trigger-key-unused': {
    severity: 'warning',
    meaning:
      'A trigger key that only works with another one is set without it: `timezone` without `schedule`, `debounce` without `watch`, `catch_up` without `schedule` or `every`, `prompt` or `overlap` without any trigger. It is ignored.',
    fix: 'Add the trigger it belongs to, or remove the key.',
  },
  'tool-missing-entrypoint': {
    severity: 'error',
    meaning: 'A `### tool` block has no `entrypoint:` line.',
    fix: 'Add `entrypoint: scheme:target`, e.g. `entrypoint: bash:ls -la {path}`.',
  },
  'invalid-entrypoint': {
    severity: 'error',
    meaning:
      'The entrypoint does not have the `scheme:target` shape (a lower-case scheme, a colon, a non-empty target).',
    fix: 'Write e.g. `bash:cat {path}`, `http:get https://…`, `node:./tool.js`.',
  },
  'invalid-preview': {
    severity: 'error',
    meaning:
      "A tool's `preview:` is not `node:<module>#<export>` (e.g. a `bash:` command, a module without an export, a list).",
    fix: 'Write e.g. `preview: node:tools.mjs#preview_write`: a function of the skill that returns `{ changes: [...] }` without changing anything.',
  },
  'tool-invalid-schema': {
    severity: 'error',
    meaning:
      "A tool's `schema` is not an object JSON Schema (`type: object`, `properties` a mapping, `required` a list of names), its fenced JSON does not parse, or a keyword is not valid JSON Schema (a misspelt `type` such as `strng`, an `enum` that is not a list): no argument could satisfy it.",
    fix: 'Write `schema:` as indented YAML or a ```yaml / ```json block with `type: object` at the top.',
  },
  'tool-invalid-default': {
    severity: 'warning',
    meaning:
      "A `default` in a tool's schema does not fit its own schema (outside its `enum`, the wrong type, …): it is filled in for a call that leaves the value out, and that call then fails.",
    fix: 'Make the `default` one of the values its schema allows, or remove it.',
  },
  'tool-required-undeclared': {
    severity: 'warning',
    meaning:
      "A tool's schema lists its `properties` (and allows no others) but `required` names one it does not declare: every call fails, since a call without it misses a required argument and a call with it gives an argument the tool does not take.",
    fix: 'Declare the property under `properties`, or take its name out of `required`.',
  },
  'tool-schema-annotation': {
    severity: 'warning',
    meaning:
      "A keyword of a tool's schema that only describes (`title`, `description`, `examples`, `$comment`, `$id`, `$schema`, `readOnly`, `writeOnly`, `deprecated`) has a value JSON Schema does not allow, or `required` names a property twice. No argument is refused for it: the tool loads.",
    fix: 'Give the keyword a value of its kind (text for `title` and `description`, a list for `examples`, a URI for `$schema`), or remove it.',
  },
  'invalid-tool-name': {
    severity: 'error',
    meaning:
      'A tool name does not match `^[a-zA-Z0-9_-]{1,64}$`, which model providers require of function names.',
    fix: 'Rename the `### heading` using letters, digits, `_` and `-` only (at most 64).',
  },
  'duplicate-tool': {
    severity: 'error',
    meaning: 'Two `###` tool blocks in one skill have the same name.',
    fix: 'Rename or merge one of them.',
  },
  'tool-missing-description': {
    severity: 'warning',
    meaning: 'A tool has no `description:`; the model will see an empty description.',
    fix: 'Add `description:` saying what the tool does and when to use it.',
  },
  'empty-tools-section': {
    severity: 'warning',
    meaning:
      'A `## Tools` section contains no `### tool` block; its text is read as prose, with the rest of the body.',
    fix: 'Add `### tool_name` blocks, or rename the heading if it is prose about tools.',
  },
  'tools-section-prose': {
    severity: 'warning',
    meaning:
      'Text between `## Tools` and its first `### tool` block: it is not part of any tool, so the model never reads it.',
    fix: 'Move it above `## Tools` (read with `always_inject: true`), or into a tool’s `description:`.',
  },
  'duplicate-tools-section': {
    severity: 'warning',
    meaning: 'A second `## Tools` section was found; only the first one is read.',
    fix: 'Move all tool blocks under one `## Tools` heading.',
  },
  'name-format': {
    severity: 'warning',
    meaning:
      'Agent Skills standard: `name` should be lower-case letters and digits (of any script, after NFKC normalisation) joined by single hyphens, as the reference validator checks.',
    fix: 'Use lower-case letters, digits and single hyphens (e.g. `web-search`).',
  },
  'name-too-long': {
    severity: 'warning',
    meaning: 'Agent Skills standard: `name` should be at most 64 characters.',
    fix: 'Shorten the name.',
  },
  'name-folder-mismatch': {
    severity: 'warning',
    meaning:
      'Agent Skills standard: `name` should equal the name of the folder holding SKILL.md (both NFKC-normalised).',
    fix: 'Rename the folder or the skill so they match.',
  },
  'name-file-mismatch': {
    severity: 'warning',
    meaning:
      "An agent's `name` should equal its file name without `.md` (both NFKC-normalised), as a skill's name equals its folder.",
    fix: 'Rename the file (`NAME.md`) or the agent so they match.',
  },
  'description-too-long': {
    severity: 'warning',
    meaning: 'Agent Skills standard: `description` should be at most 1024 characters.',
    fix: 'Shorten the description; move details into the body.',
  },
  'compatibility-too-long': {
    severity: 'warning',
    meaning: 'Agent Skills standard: `compatibility` should be at most 500 characters.',
    fix: 'Shorten it.',
  },
  'value-converted': {
    severity: 'warning',
    meaning:
      'An Agent Skills field that is text (`name`, `description`, `license`, `compatibility`, `allowed-tools`) was written as a number or boolean (or, for `license` and `compatibility`, a list; for `allowed-tools`, a list with numbers); it was converted to text, as the reference validator reads it.',
    fix: 'Quote the value (`name: "123"`) or write it as text.',
  },
  'metadata-not-mapping': {
    severity: 'warning',
    meaning: '`metadata` is not a mapping (e.g. `metadata: just a string`); it is ignored.',
    fix: 'Write `metadata:` as `key: value` lines, or remove it.',
  },
  'metadata-not-string': {
    severity: 'warning',
    meaning:
      'A `metadata` value is not text (the standard maps names to text): numbers and booleans are converted to text, lists and mappings are kept as written.',
    fix: 'Quote the value, or write nested data as text.',
  },
  'resources-capped': {
    severity: 'warning',
    meaning:
      'The skill folder is deeper or holds more files than the resource listing goes; the rest is not listed.',
    fix: 'Keep skill folders small; move large trees (e.g. datasets, node_modules) elsewhere.',
  },
  'text-encoding': {
    severity: 'error',
    meaning:
      'The file is not UTF-8 text (saved in Latin-1 or another legacy encoding). Decoding it would put U+FFFD in place of its bad bytes, so a tool would run, and the model would read, other characters than the file holds: it is not parsed.',
    fix: 'Save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`).',
  },
  'byte-order-mark': {
    severity: 'warning',
    meaning:
      'The SKILL.md starts with a byte order mark. birdie skips it; other Agent Skills clients (and the reference validator) then find no frontmatter and refuse the skill.',
    fix: 'Save the file as UTF-8 without a BOM.',
  },
  'skill-file-name': {
    severity: 'warning',
    meaning:
      'The skill file is named `SKILL.MD`. birdie reads it; the Agent Skills standard names it `SKILL.md`, and other clients do not find the skill.',
    fix: 'Rename the file to `SKILL.md`.',
  },
  'flow-style-yaml': {
    severity: 'info',
    meaning:
      'A value of a standard key is written in YAML flow style (`[a, b]`, `{k: v}`); with `strict`, any value. YAML allows it; the reference validator (strictyaml) and clients built on it refuse the file.',
    fix: 'Write a block list (`- a` lines) or mapping (`key: value` lines) instead.',
  },
  'non-standard-key': {
    severity: 'warning',
    meaning:
      'Reported only by `--strict` (`strict: true`): a frontmatter key outside the Agent Skills standard (`name`, `description`, `license`, `compatibility`, `metadata`, `allowed-tools`), such as birdie’s own `version`, `tags` or `triggers`; the reference validator refuses the file.',
    fix: 'For a skill published to other clients, move the value under `metadata:` or drop it.',
  },
  'unknown-key': {
    severity: 'info',
    meaning:
      'A frontmatter key (or `mcp_server` key) this parser does not use in this kind of file (skill or agent); other clients may. It is ignored.',
    fix: 'Nothing, if another client needs it; otherwise check the spelling.',
  },
  'unknown-tool-key': {
    severity: 'info',
    meaning:
      'A key in a `### tool` block that is not `description`, `entrypoint`, `schema`, `timeout`, `retries`, `approval`, `preview` or one of the entrypoint settings (`sandbox`, `network`, `writable`, `memory`, `cpus`, `pids`, `proto`, `tls`, `ca`, `metadata`). It is ignored.',
    fix: 'Check the spelling.',
  },
  'tool-key-not-applicable': {
    severity: 'warning',
    meaning:
      'An entrypoint setting on a tool whose scheme does not read it (`proto:` on a `bash:` tool, `sandbox:` on an `http:` tool, `retries:` on anything but an `http:` tool). It is ignored.',
    fix: 'Remove it, or check the entrypoint: `sandbox` is for bash:/python:/node:, `network` for those and container:, `writable`/`memory`/`cpus`/`pids` for container:, `proto`/`tls`/`ca`/`metadata` for grpc:, `retries` for http:.',
  },
  'tool-text-ignored': {
    severity: 'info',
    meaning:
      'Text in a tool block that is neither a `key:` line nor its continuation (e.g. prose before the first key, or a second line under `entrypoint:`). It is ignored.',
    fix: 'Put prose in `description:`; an entrypoint is one line.',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;

/**
 * The Agent Skills standard's rules (what the reference validator refuses), warnings or infos here so that skills
 * written for other clients still load; `strict: true` (`birdie skills check --strict`) makes them errors.
 */
export const STANDARD_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'name-format',
  'name-too-long',
  'name-folder-mismatch',
  'description-too-long',
  'compatibility-too-long',
  'unknown-key',
  'non-standard-key',
  'byte-order-mark',
  'skill-file-name',
  'flow-style-yaml',
]);
