/**
 * The data model of a parsed skill. Everything here is plain JSON (no classes, no functions) so that a skill can be
 * cached, sent over a wire or snapshotted in a test as it is.
 */

/** A JSON Schema describing a tool's arguments. Always `type: "object"` at the top. */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  [keyword: string]: unknown;
}

/** Any JSON Schema node (kept loose on purpose: validation happens at the boundary, not in the type). */
export type JsonSchema = { [keyword: string]: unknown };

export type ToolApproval = 'required' | 'never';

export interface SkillTool {
  /** Matches `^[a-zA-Z0-9_-]{1,64}$` (what every provider accepts as a function name). */
  name: string;
  description: string;
  /** `scheme:target`, taken verbatim from the source line (e.g. `bash:echo "{content}" > {path}`). */
  entrypoint: string;
  schema: JsonSchemaObject;
  /** Seconds. Absent: the runtime's default. */
  timeout?: number;
  /** Extra attempts after a failure. Absent: the entrypoint's default. */
  retries?: number;
  /**
   * Absent: decided by the runtime (raw shell commands, tools with a preview and `bash:` commands that can run a value
   * as code need approval, the rest do not); `never` turns that off.
   */
  approval?: ToolApproval;
  /**
   * `node:module#export` that computes, without side effects, what a call would change (`{ changes: [...] }`). A
   * tool with a preview changes files: the runtime asks before each call under its default mode and shows the change.
   */
  preview?: string;
  /** `bash:`/`python:`/`node:`: always run under the sandbox (bubblewrap). */
  sandbox?: boolean;
  /** Sandboxed `bash:`/`python:`/`node:` and `container:`: allow network access. */
  network?: boolean;
  /** `container:`: the working directory is mounted read-write at /work. */
  writable?: boolean;
  /** `container:`: memory limit (`512m`, `2g`). */
  memory?: string;
  /** `container:`: CPU limit. */
  cpus?: number;
  /** `container:`: process limit. */
  pids?: number;
  /** `grpc:`: the `.proto` file, relative to the skill folder. */
  proto?: string;
  /** `grpc:`: connect with TLS. */
  tls?: boolean;
  /** `grpc:`: CA certificates (PEM) relative to the skill folder, trusted instead of the system roots. */
  ca?: string;
  /** `grpc:`: metadata sent with every call (the author's values; the model never sets them). */
  metadata?: Record<string, string>;
  /** 1-based line of the tool's `###` heading in the skill file, for diagnostics further down the line. */
  line: number;
  /**
   * 1-based line and column of the entrypoint's first character in the skill file (a BOM is not counted; after an
   * opening quote for a quoted value; the first character of a block scalar's text). For an entrypoint written on its
   * line as is (the usual case) or quoted without escapes, the character at offset `i` of `entrypoint` is at column
   * `column + i` of that line, so a finding inside the template can be reported at its exact place. Set on every tool
   * this package returns.
   */
  entrypointPosition?: { line: number; column: number };
}

export interface McpStdioServer {
  transport: 'stdio';
  command: string;
  /** Relative arguments that name a file inside the skill folder are already resolved to absolute paths. */
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Seconds. */
  timeout?: number;
}

export interface McpRemoteServer {
  transport: 'sse' | 'streamable_http';
  url: string;
  headers?: Record<string, string>;
  /** Seconds. */
  timeout?: number;
}

export type McpServerConfig = McpStdioServer | McpRemoteServer;

export type SkillKind = 'knowledge' | 'tool' | 'mcp';

export interface Skill {
  name: string;
  /** Default `"1.0.0"`. */
  version: string;
  description: string;
  tags: string[];
  /** Tags given to every tool of this skill in addition to `tags` (`tool_tags` in the frontmatter). */
  toolTags: string[];
  triggers: string[];
  /** Default `true`. */
  enabledByDefault: boolean;
  /** Default `false`. */
  alwaysInject: boolean;
  license?: string;
  compatibility?: string;
  /**
   * The Agent Skills `metadata` mapping. Values are text as the standard says; numbers and booleans are converted to
   * text, lists and mappings are kept as written (both with a `metadata-not-string` warning).
   */
  metadata?: Record<string, unknown>;
  /** The Agent Skills `allowed-tools` field, split into names. */
  allowedTools?: string[];
  mcpServer?: McpServerConfig;
  tools: SkillTool[];
  /**
   * The prose the model may read. A skill without tools keeps its whole body; a tool skill keeps the prose before
   * `## Tools` only when `alwaysInject` is set; otherwise `null`. The `## Tools` section is never part of it.
   */
  body: string | null;
  kind: SkillKind;
  /** Absolute path of the SKILL.md file. */
  file: string;
  /** Absolute path of the skill folder. */
  dir: string;
  /** Other files in the skill folder, relative, `/`-separated, sorted (for on-demand reading). */
  resources: string[];
}

/** A 1-based place in a file (a BOM is not counted). */
export interface SourcePoint {
  line: number;
  column: number;
}

/**
 * Where the values of an agent's name lists (and its model) were written, item by item, so that a finding about one
 * of them made elsewhere (the registry: an unknown skill, a tool out of reach) points at its exact place.
 */
export interface AgentPositions {
  model?: SourcePoint;
  skills?: SourcePoint[];
  tools?: SourcePoint[];
  approve?: SourcePoint[];
  subagents?: SourcePoint[];
  handoffs?: SourcePoint[];
}

/**
 * An agent's trigger keys, as `birdie start` reads them. Durations are seconds (`every: 15m` → 900). Absent keys take
 * the scheduler's defaults: the machine's time zone, a debounce of 0.5 s, `overlap: skip`, `catch_up: true`.
 */
export interface AgentTriggers {
  /** A cron expression as written (5 fields, 6 with seconds first, or a nickname such as `@daily`). */
  schedule?: string;
  /** The IANA time zone `schedule` is read in (`Europe/Berlin`). */
  timezone?: string;
  /** Seconds between runs, at least 1. */
  every?: number;
  /** Paths or globs, relative to the agent's project, whose changes start a run. */
  watch?: string[];
  /** Seconds of quiet after the last change before a watch run starts. */
  debounce?: number;
  /** What the agent is told when triggered (for `watch`, the changed paths are appended). */
  prompt?: string;
  /** A run that comes due while one of this agent's runs is active: `skip` it (logged) or `queue` it. */
  overlap?: 'skip' | 'queue';
  /** `false`: a schedule missed while nothing was running is skipped instead of run once. */
  catchUp?: boolean;
  /**
   * `keep`: every triggered run continues one session, so the agent remembers its previous runs (compaction keeps it
   * bounded); `new` (the default): each run starts a session of its own.
   */
  session?: 'keep' | 'new';
}

/**
 * One agent: `NAME.md` in an agents folder, its frontmatter the configuration, its body the system prompt. Plain JSON
 * like `Skill`. Optional fields are absent when the file does not set them (the runtime's defaults apply).
 */
export interface AgentDefinition {
  /** Agent Skills naming rules, as for skills; should equal the file name without `.md`. */
  name: string;
  description: string;
  /** `"vendor:model"` (a vendor of `MODEL_VENDORS`) or a tier name of the user's config; never anything else. */
  model?: string;
  /** Skill names enabled for this agent (never more than the user may grant). */
  skills?: string[];
  /** Allowlist of tool names. */
  tools?: string[];
  /** Tool names pre-approved for this agent. */
  approve?: string[];
  /** Agents it may delegate to (a `task` tool). */
  subagents?: string[];
  /** Agents it may hand the conversation to (a `handoff` tool). */
  handoffs?: string[];
  /** Tools of its skills hidden until `load_skill` (`progressive` in the file). */
  progressive?: boolean;
  /** `max_turns` in the file: a positive whole number. */
  maxTurns?: number;
  /** Seconds, positive. */
  timeout?: number;
  /** Sampling temperature of the agent's model calls, 0 to 2 (`temperature` in the file). */
  temperature?: number;
  /** Retries of a failed model call (rate limits, server errors), 0 to 10 (`max_retries` in the file). */
  maxRetries?: number;
  /** When the agent runs by itself (`birdie start`): present when the file sets `schedule`, `every` or `watch`. */
  triggers?: AgentTriggers;
  /** The system prompt: the body, trimmed, CRLF turned into LF; `''` when the file has none. */
  body: string;
  /** Absolute path of NAME.md. */
  file: string;
  /**
   * SHA-256 (hex) of the frontmatter text and the body as parsed (BOM dropped, line endings LF, each trimmed), so a
   * run log says exactly which version of an agent ran.
   */
  digest: string;
  /** Where list items and the model were written (absent on definitions not made by this package). */
  positions?: AgentPositions;
}
