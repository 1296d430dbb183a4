import type { CodeTakingWarning } from './code-taking-commands.js';
/** The part of a JSON Schema object this package reads: `properties[name].default`. */
export interface JsonSchemaObjectLike {
  type?: unknown;
  properties?: Record<string, { default?: unknown; [key: string]: unknown } | undefined>;
  required?: readonly string[];
  [key: string]: unknown;
}

export interface ResolveContext {
  /** Absolute path of the skill folder: the root for `node:`/`python:` modules and the default cwd. */
  skillDir: string;
  /** The tool's argument schema; its `default`s fill missing arguments. */
  schema?: JsonSchemaObjectLike;
  /**
   * The tool's own settings from its SKILL.md block (a parsed `SkillTool` can be passed as it is: only these keys
   * are read). They are the skill author's, never the model's.
   */
  settings?: ToolSettings;
}

/** How a tool asks to be run, written by the skill author next to its entrypoint. Each key applies to some schemes. */
export interface ToolSettings {
  /** `bash:`/`python:`/`node:`: run under the sandbox (bubblewrap) even when the application does not ask for it. */
  sandbox?: boolean;
  /** Sandboxed `bash:`/`python:`/`node:` and `container:`: allow network access (off by default). */
  network?: boolean;
  /** `container:`: mount the working directory at /work read-write (read-only by default). */
  writable?: boolean;
  /** `container:`: memory limit, e.g. `512m`, `2g`. */
  memory?: string;
  /** `container:`: CPU limit, e.g. `1.5`. */
  cpus?: number;
  /** `container:`: process limit. */
  pids?: number;
  /** `grpc:`: the `.proto` file, relative to the skill folder. */
  proto?: string;
  /** `grpc:`: use TLS (system roots, or `ca`). */
  tls?: boolean;
  /** `grpc:`: a PEM file of CA certificates, relative to the skill folder, trusted instead of the system roots. */
  ca?: string;
  /** `grpc:`: request metadata sent with every call. */
  metadata?: Record<string, string>;
}

/**
 * Where a call of an entrypoint runs: on the host (`none`), under the sandbox (bubblewrap), in a container, or in the
 * application's own process as its own first-party code, which confines its paths itself (`in-process`: a `node:`
 * tool of a folder named with `configureNodeTools`).
 */
export type Confinement = 'none' | 'sandbox' | 'container' | 'in-process';

export interface SchemeContext extends ResolveContext {
  /** The scheme name, without the colon. */
  scheme: string;
  /** The whole entrypoint string, for messages. */
  entrypoint: string;
}

/**
 * Text files read and written through the application instead of the disk: an editor's open buffers over the Agent
 * Client Protocol, say, so the model sees unsaved changes and the editor records each write. Given to `node:` tools
 * only (as `context.files`); a tool still confines every path itself and passes absolute, resolved paths.
 */
export interface FileAccess {
  /** The file's text as the application has it (unsaved edits included); `line` is 1-based, `limit` a line count. */
  readTextFile(path: string, options?: { line?: number; limit?: number }): Promise<string>;
  /** Replaces the file's whole text. */
  writeTextFile(path: string, content: string): Promise<void>;
}

/** A piece of a child process's output as it arrives: whole characters (a UTF-8 sequence is never split). */
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Wall-clock limit for the whole call (including HTTP retries). Default 60 000. */
  timeoutMs?: number;
  /** Cap on the captured output in bytes. Default 102 400. */
  maxOutputBytes?: number;
  /**
   * Largest image a call may return, in bytes of its base64 (what a model request carries). Default 5 MiB (`DEFAULT_MAX_IMAGE_BYTES`). A larger one is
   * left out of `images`, and `output` says it was dropped, with its type and size.
   */
  maxImageBytes?: number;
  /** Working directory for child processes. Default: the skill folder. */
  cwd?: string;
  /** Extra environment variables for child processes, on top of the allowlist. */
  env?: Record<string, string>;
  /** HTTP retries after the first attempt. Default 1 for GET, 0 for POST. */
  retries?: number;
  /** Delay between SIGTERM and SIGKILL of a process group. Default 2 000. */
  killGraceMs?: number;
  /** Extra request headers for `http:` (never derived from arguments). */
  headers?: Record<string, string>;
  /** A `node:` tool's `context.files`; other schemes ignore it. */
  files?: FileAccess;
  /** Extra request metadata for `grpc:`, on top of the tool's `metadata` (never derived from arguments). */
  metadata?: Record<string, string>;
  /**
   * `bash:`/`python:`/`node:`: run this call under the sandbox even when the tool did not declare `sandbox: true` (a
   * tool that declared it always runs sandboxed; so does every call while `configureSandbox('always')` is in effect).
   * A `node:` tool of the application's own folders (`configureNodeTools`) stays in-process unless it declared it.
   */
  sandbox?: boolean;
  /**
   * Called with the output of the call's child process as it arrives, before the call ends (`bash:`, `container:`;
   * `python:` passes the function's prints, which it sends to stderr, and never its JSON result). The whole stream
   * is passed, whatever `maxOutputBytes` keeps for the result; the result itself does not change. A listener that
   * throws is ignored. Schemes with no child process (`http:`, `grpc:`, an in-process `node:`) never call it; a
   * sandboxed `node:` call passes what the function prints (stderr), never its JSON result.
   */
  onOutput?: (chunk: OutputChunk) => void;
}

export interface RunResult {
  output: string;
  exitCode?: number;
  truncated: boolean;
  /**
   * How many bytes of the command's output `output` leaves out (the runner keeps its head and tail and counts the
   * rest), when it knows: a reader that cuts `output` further adds them to its own count. Absent on other kinds of
   * truncation (an HTTP body read up to the cap), whose full size is unknown.
   */
  droppedBytes?: number;
  /**
   * Images the call returned (a `node:`/`python:` function's `{ content: [...] }` result with image blocks), for
   * models that can see them. `output` always names them in text, for every other reader.
   */
  images?: ToolImage[];
}

/** An image a tool returned: its MIME type and its bytes in base64 (as MCP and the model vendors carry images). */
export interface ToolImage {
  mimeType: string;
  data: string;
}

export interface Entrypoint {
  scheme: string;
  /** True only for a bash template that is exactly `{command}`: the runtime should ask for approval. */
  raw: boolean;
  /** Argument names referenced by the entrypoint string, in first-use order. */
  placeholders: string[];
  /**
   * Where calls run: `container` for `container:`; `sandbox` for a `bash:`/`python:`/`node:` tool that declared
   * `sandbox: true`; `in-process` for a `node:` tool of the application's own folders (`configureNodeTools`); else
   * `none` (see `confinementOf` for the effect of the sandbox mode and `RunOptions.sandbox`). Absent on schemes an
   * application registered: `none`.
   */
  confinement?: Confinement;
  /**
   * `bash:` commands of the template that can run a value as code (`perl -e`, `find -exec sh -c`, an awk program
   * with `system()`, a file the template writes and runs …; offsets into the template). The runtime asks for
   * approval before each call unless the tool declares `approval: never`. Absent when there are none.
   */
  runsCode?: readonly CodeTakingWarning[];
  run(args: Record<string, unknown>, options?: RunOptions): Promise<RunResult>;
}

export type SchemeFactory = (target: string, context: SchemeContext) => Entrypoint;
