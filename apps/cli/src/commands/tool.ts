import { applyIsolation, confinementLine, confinementOfTool, loadSettings } from '@birdie/runtime/isolation';
import { checkUserId, findSession, openUserStore, userIdOf } from '@birdie/runtime/runtime';
import { openSessionFolder, type SessionFolder } from '@birdie/runtime/session-folder';
import { openTrustedRegistry, workingDir } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, UsageError, write } from '../io.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { didYouMean } from '../suggest.js';

/**
 * `birdie tool NAME --args '{…}'`: one skill tool through its real entrypoint, no model. It is built and run by the
 * same code as the agent's calls (`@birdie/graph/tools`): the same schema check and defaults, the same limits, the
 * same output and error text the model would read. With `--session-id` the tool runs as that session (the
 * environment a turn of it would give); without, it has no session.
 */
export async function toolCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  const args = parseToolArgs(typeof values.args === 'string' ? values.args : '{}');
  const registry = await openTrustedRegistry(io, values);
  const snapshot = registry.current();
  const entry = snapshot.getTool(name);
  if (!entry) {
    const untrusted = snapshot.untrusted.find((w) =>
      w.skills.some((s) => s.tools.some((t) => t.name === name)),
    );
    if (untrusted)
      throw new UsageError(
        `tool "${name}" belongs to a project skill of ${untrusted.path}, which you have not trusted: run \`birdie trust\` there first (or pass --trust-workspace)`,
      );
    const all = snapshot.skills.flatMap((s) => s.tools.map((t) => t.name));
    throw new UsageError(
      `unknown tool "${name}".${didYouMean(name, all)} Run \`birdie skills list\` to see them.`,
    );
  }
  const seconds = values.timeout === undefined ? undefined : Number(values.timeout);
  if (seconds !== undefined && !(seconds > 0))
    throw new UsageError(`--timeout must be a positive number of seconds, got "${values.timeout}"`);
  const { createSkillTool, TOOL_LIMITS } = await import('@birdie/graph/tools');
  // --timeout wins over the tool's own `timeout`, which wins over the default.
  const declared = seconds === undefined ? entry.tool : { ...entry.tool, timeout: seconds };
  await applyIsolation(io, values, await loadSettings(io, values));
  const confined = await confinementLine(
    name,
    await confinementOfTool(entry.skill, declared),
    workingDir(io, values),
    declared,
  );
  if (confined) write(io.stderr, confined);
  const tool = createSkillTool(entry.skill, declared, TOOL_LIMITS);
  const built = tool.build(args);
  if (!built.ok) throw new UsageError(`tool ${name}: ${built.error}`);

  const session =
    typeof values['session-id'] === 'string'
      ? await toolSession(io, values['session-id'], await checkUserId(userIdOf(io, values)))
      : undefined;
  const env = session?.env;
  const controller = new AbortController();
  let stopped = false;
  const stopListening = onStopSignal((signal) => {
    stopped = true;
    controller.abort(new Error(`interrupted (${signal})`));
  });
  try {
    const result = await built.invocation.run({
      cwd: workingDir(io, values),
      signal: controller.signal,
      ...(env ? { env } : {}),
    });
    const text =
      result.content.endsWith('\n') || result.content === '' ? result.content : `${result.content}\n`;
    if (!result.ok) {
      io.stderr.write(text);
      return EXIT_RUN;
    }
    io.stdout.write(text);
    if (result.truncated) write(io.stderr, 'birdie: output truncated at the output cap');
    return EXIT_OK;
  } finally {
    stopListening();
    if (stopped) await endChildProcesses();
    await session?.close();
  }
}

/**
 * The session must exist: a typo would otherwise start an empty plan in a folder no session owns. Its folder holds
 * what the store holds for it, and what the tool changes there goes back to the store when the command ends.
 */
async function toolSession(
  io: CommandContext['io'],
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
