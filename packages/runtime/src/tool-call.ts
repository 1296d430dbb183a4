import type { DeclaredTool, ToolInvocation, ToolResult } from '@birdie/graph/tools';
import type { RegistrySnapshot, ToolEntry } from '@birdie/registry';
import { didYouMean, looksLikeTypo } from './did-you-mean.js';
import { UsageError } from './errors.js';

export { ToolLookupError } from './tool-refusal.js';

import type { Flags } from './flags.js';
import { type RuntimeIo, warn } from './io.js';
import { applyIsolation, confinementLine, confinementOfTool, loadSettings } from './isolation.js';
import { findMcpTool } from './mcp-direct-call.js';
import { checkUserId, findSession, userIdOf } from './runtime.js';
import { openSessionFolder, type SessionFolder } from './session-folder.js';
import { openTrustedRegistry, workingDir } from './skills.js';
import { settingsToolEnv } from './tool-environment.js';
import { folderProblems, ToolLookupError, toolRefusal } from './tool-refusal.js';
import { openUserStore } from './user-store.js';
import { decimalNumber } from './decimal.js';

/** The longest timeout a Node timer can wait (2^31-1 ms); the same bound as a skill's `timeout:`. */
const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A skill tool built with its arguments, ready to run once (`birdie tool`). */
export interface ToolCall {
  /**
   * Runs the tool in the working folder (as the session, when one was given); never throws for a failed tool.
   * `onPrint` hears, as it arrives, what the tool prints apart from its result: a `python:` function's prints and a
   * sandboxed `node:` function's `console.log` (an in-process one writes to the process's own stderr). A `bash:` or
   * `container:` tool's output is its result, which it is not given again.
   */
  run(signal: AbortSignal, onPrint?: (text: string) => void): Promise<ToolResult>;
  /** Writes back what the tool changed in the session's folder, and closes the store. */
  close(): Promise<void>;
}

export interface ToolCallOptions {
  /** The arguments as JSON text (default `{}`). */
  args?: string;
  /** Seconds, over the tool's own `timeout`. */
  timeout?: string;
  /** Run as this session of the user: the environment a turn of it would give its tools. */
  sessionId?: string;
}

/**
 * One skill tool through its real entrypoint, no model: built and run by the same code as the agent's calls
 * (`@birdie/graph/tools`: the same schema check and defaults, limits, output and error text the model would read),
 * with the same isolation. How it is confined (sandbox, container) is said on `io.stderr`. Usage errors: bad JSON,
 * an unknown or untrusted tool, arguments the schema refuses, an unknown session.
 */
export async function prepareToolCall(
  io: RuntimeIo,
  flags: Flags,
  name: string,
  options: ToolCallOptions = {},
): Promise<ToolCall> {
  const args = parseToolArgs(options.args ?? '{}');
  const registry = await openTrustedRegistry(io, flags);
  const snapshot = registry.current();
  const seconds = options.timeout === undefined ? undefined : decimalNumber(String(options.timeout));
  if (seconds !== undefined && !(seconds > 0))
    throw new UsageError(`--timeout must be a positive number of seconds, got "${options.timeout}"`);
  if (seconds !== undefined && seconds > MAX_TIMEOUT_SECONDS)
    throw new UsageError(
      `--timeout must be at most ${MAX_TIMEOUT_SECONDS} seconds (about 24 days), the longest a timer can wait; got "${options.timeout}"`,
    );
  const lookup = await lookUpTool(snapshot, name);
  // A typo of a declared tool (a few edits from it) is said at once, without starting every server to ask them; so is
  // a tool of an untrusted project skill, or one refused at load (the lookup says why). A name a declared tool only
  // contains (`echo`, `notes_helper_echo`) is not a typo: it may be exactly a server's tool, so the servers are asked.
  if (!('entry' in lookup) && !lookup.refusal && !looksLikeTypo(name, declaredToolNames(snapshot))) {
    const search = await findMcpTool(io, registry, name, workingDir(io, flags));
    if (search.tool) return prepareMcpCall(io, flags, search, args, seconds, options);
    throw unknownTool(snapshot, name, [...declaredToolNames(snapshot), ...search.listed]);
  }
  const entry = entryOf(lookup, snapshot, name);
  const builtin = /^builtin:(.+)$/.exec(entry.tool.entrypoint.trim())?.[1];
  if (builtin !== undefined) throw new UsageError(builtinRefusal(name, builtin));
  const { createSkillTool, TOOL_LIMITS } = await import('@birdie/graph/tools');
  // --timeout wins over the tool's own `timeout`, which wins over the default.
  const declared = seconds === undefined ? entry.tool : { ...entry.tool, timeout: seconds };
  const settings = await loadSettings(io, flags);
  await applyIsolation(io, flags, settings);
  const cwd = workingDir(io, flags);
  const confined = await confinementLine(name, await confinementOfTool(entry.skill, declared), cwd, declared);
  if (confined) warn(io, confined);
  const built = createSkillTool(entry.skill, declared, TOOL_LIMITS).build(args);
  if (!built.ok) throw new UsageError(`tool ${name}: ${built.error}`);
  const invocation: ToolInvocation = built.invocation;
  const session =
    options.sessionId !== undefined
      ? await toolSession(io, options.sessionId, await checkUserId(userIdOf(io, flags)))
      : undefined;
  const printsApart = PRINTS_APART.test(declared.entrypoint.trim());
  return {
    run: (signal, onPrint) =>
      invocation.run({
        cwd,
        signal,
        env: { ...session?.env, ...settingsToolEnv(settings, io.env) },
        ...(onPrint && printsApart ? { onOutput: (chunk: { text: string }) => onPrint(chunk.text) } : {}),
      }),
    close: async () => session?.close(),
  };
}

/** Entrypoints whose output while they run is what they print, never their result (`RunOptions.onOutput`). */
const PRINTS_APART = /^(python|node):/;

/** The task tools' targets: `birdie tasks` shows and cancels what they would. */
const TASK_BUILTINS: ReadonlySet<string> = new Set(['list_tasks', 'cancel_task', 'schedule_task']);

/**
 * Why a `builtin:` tool is not run here: the agent runs it in-process with the user's store (its entrypoint only
 * fails outside a turn, session or not), and where to go instead.
 */
function builtinRefusal(name: string, target: string): string {
  const instead = TASK_BUILTINS.has(target)
    ? 'Your scheduled tasks: birdie tasks list (birdie tasks cancel ID cancels one).'
    : 'Ask for it in a conversation instead (birdie run "…").';
  return `${name} is a built-in tool (builtin:${target}): only the agent runs it, during a turn, so \`birdie tool\` cannot run it, with or without --session-id. ${instead}`;
}

/**
 * The trusted skill tool of that name in the snapshot; a usage error naming the folder to trust for a tool of an
 * untrusted project skill; a `ToolLookupError` with the diagnostics that say why for a tool refused at load, or with
 * the closest of `offered` (and the warnings of folders that loaded nothing) for an unknown one.
 */
export async function knownTool(
  snapshot: RegistrySnapshot,
  name: string,
  /**
   * The names the closest is drawn from when the name is unknown: by default every tool the skills declare. A caller
   * that may see only some tools (an MCP session) passes those it can see, so no other tool's name is given away.
   */
  offered: readonly string[] = declaredToolNames(snapshot),
): Promise<ToolEntry> {
  return entryOf(await lookUpTool(snapshot, name), snapshot, name, offered);
}

/**
 * A name looked up among the skills: the trusted tool, or the error that says why no tool of that name runs (a tool
 * of an untrusted project skill, one refused at load), or neither (no skill declares it: an MCP server may list it).
 */
type ToolLookup = { entry: ToolEntry } | { refusal: UsageError | undefined };

async function lookUpTool(snapshot: RegistrySnapshot, name: string): Promise<ToolLookup> {
  const entry = snapshot.getTool(name);
  if (entry) return { entry };
  const untrusted = snapshot.untrusted.find((w) =>
    w.skills.some((s) => s.tools.some((t) => t.name === name)),
  );
  if (untrusted)
    return {
      refusal: new UsageError(
        `tool "${name}" belongs to a project skill of ${untrusted.path}, which you have not trusted: run \`birdie trust\` there first (or pass --trust-workspace)`,
      ),
    };
  const refused = await toolRefusal(snapshot, name);
  if (refused) {
    const errors = refused.diagnostics.length === 1 ? 'error' : 'errors';
    return {
      refusal: new ToolLookupError(
        `tool "${name}" was refused when its skill (${refused.file}) was loaded; fix the ${errors} \`birdie skills check\` shows for it`,
        refused.diagnostics,
      ),
    };
  }
  return { refusal: undefined };
}

/** The lookup's tool; else throws its refusal, or that the name is unknown (with the closest of `offered`). */
function entryOf(
  lookup: ToolLookup,
  snapshot: RegistrySnapshot,
  name: string,
  offered: readonly string[] = declaredToolNames(snapshot),
): ToolEntry {
  if ('entry' in lookup) return lookup.entry;
  throw lookup.refusal ?? unknownTool(snapshot, name, offered);
}

/** That no tool has the name, with the closest of `offered` (the names the caller may see). */
function unknownTool(snapshot: RegistrySnapshot, name: string, offered: readonly string[]): ToolLookupError {
  return new ToolLookupError(
    `unknown tool "${name}".${didYouMean(name, offered)} Run \`birdie skills list\` to see them.`,
    folderProblems(snapshot),
  );
}

/** The tools the trusted skills declare in `## Tools`. */
function declaredToolNames(snapshot: RegistrySnapshot): string[] {
  return snapshot.skills.flatMap((s) => s.tools.map((t) => t.name));
}

/**
 * An MCP server's tool, built and run by the agent's own MCP tool (its schema check, output limit and error text).
 * Its server is shared by every session, so it gets no session's environment: `--session-id` is refused rather than
 * silently ignored. `--timeout` bounds the call; the servers started to find the tool stop when the call is closed.
 */
async function prepareMcpCall(
  io: RuntimeIo,
  flags: Flags,
  found: { tool: DeclaredTool; close(): Promise<void> },
  args: Record<string, unknown>,
  seconds: number | undefined,
  options: ToolCallOptions,
): Promise<ToolCall> {
  try {
    if (options.sessionId !== undefined)
      throw new UsageError(
        `--session-id does not apply to "${found.tool.name}": it is a tool of an MCP server, which no session owns`,
      );
    const built = found.tool.build(args);
    if (!built.ok) throw new UsageError(`tool ${found.tool.name}: ${built.error}`);
    const settings = await loadSettings(io, flags);
    // The agent does not confine MCP servers either; under --sandbox that must be said, as for http: tools.
    if (flags.sandbox === true || settings.sandbox === 'always')
      warn(
        io,
        `birdie: ${found.tool.name} runs on the MCP server of skill ${found.tool.skill}, not in the sandbox: the sandbox confines bash:, python: and node: tools`,
      );
    const cwd = workingDir(io, flags);
    return {
      run: (signal) =>
        built.invocation.run({
          cwd,
          signal:
            seconds === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(seconds * 1000)]),
        }),
      close: () => found.close(),
    };
  } catch (error) {
    await found.close();
    throw error;
  }
}

/**
 * The session must exist: a typo would otherwise start an empty plan in a folder no session owns. Its folder holds
 * what the store holds for it, and what the tool changes there goes back to the store when the call is closed.
 */
export async function toolSession(
  io: RuntimeIo,
  id: string,
  userId: string,
): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const store = await openUserStore(io);
  let folder: SessionFolder;
  try {
    const session = await findSession(store, id, userId);
    folder = await openSessionFolder(store, io.env, session);
    // What a turn of the session gives its tools (the agent adds BIRDIE_SESSION_ID there).
    return {
      env: { ...folder.env, BIRDIE_SESSION_ID: session.id },
      async close() {
        try {
          await folder.sync();
        } finally {
          await store.close();
        }
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** `--args`: a JSON object. */
export function parseToolArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--args must be a JSON object, e.g. \'{"path":"README.md"}\'');
  }
  return value as Record<string, unknown>;
}
