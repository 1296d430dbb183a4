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
}

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

export interface RunOptions {
  signal?: AbortSignal;
  /** Wall-clock limit for the whole call (including HTTP retries). Default 60 000. */
  timeoutMs?: number;
  /** Cap on the captured output in bytes. Default 102 400. */
  maxOutputBytes?: number;
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
}

export interface RunResult {
  output: string;
  exitCode?: number;
  truncated: boolean;
}

export interface Entrypoint {
  scheme: string;
  /** True only for a bash template that is exactly `{command}`: the runtime should ask for approval. */
  raw: boolean;
  /** Argument names referenced by the entrypoint string, in first-use order. */
  placeholders: string[];
  run(args: Record<string, unknown>, options?: RunOptions): Promise<RunResult>;
}

export type SchemeFactory = (target: string, context: SchemeContext) => Entrypoint;
