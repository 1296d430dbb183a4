import { CliError, EXIT_OK, EXIT_RUN, UsageError, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { findSession, openUserStore } from '../runtime.js';
import { sessionToolEnv } from '../session-dir.js';
import { onStopSignal } from '../stop-signals.js';
import { openRegistry, workingDir } from '../skills.js';
import { didYouMean } from '../suggest.js';

/**
 * `birdie tool NAME --args '{…}'`: one skill tool through its real entrypoint, no model. With `--session-id` the tool
 * runs as that session (the environment a turn of it would give); without, it has no session.
 */
export async function toolCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const name = positionals[0]!;
  const args = parseToolArgs(typeof values.args === 'string' ? values.args : '{}');
  const registry = await openRegistry(io, values);
  const snapshot = registry.current();
  const entry = snapshot.getTool(name);
  if (!entry) {
    const all = snapshot.skills.flatMap((s) => s.tools.map((t) => t.name));
    throw new UsageError(
      `unknown tool "${name}".${didYouMean(name, all)} Run \`birdie skills list\` to see them.`,
    );
  }
  const timeoutSeconds =
    typeof values.timeout === 'string' ? Number(values.timeout) : (entry.tool.timeout ?? 60);
  if (!(timeoutSeconds > 0))
    throw new UsageError(`--timeout must be a positive number of seconds, got "${values.timeout}"`);

  const env =
    typeof values['session-id'] === 'string' ? await toolSessionEnv(io, values['session-id']) : undefined;

  const { resolveEntrypoint, EntrypointError } = await import('@birdie/entrypoints');
  const controller = new AbortController();
  const stopListening = onStopSignal((signal) => controller.abort(new Error(`interrupted (${signal})`)));
  try {
    const entrypoint = resolveEntrypoint(entry.tool.entrypoint, {
      skillDir: entry.skill.dir,
      schema: entry.tool.schema,
    });
    const result = await entrypoint.run(args, {
      signal: controller.signal,
      timeoutMs: timeoutSeconds * 1000,
      cwd: workingDir(io, values),
      ...(env ? { env } : {}),
      ...(entry.tool.retries !== undefined ? { retries: entry.tool.retries } : {}),
    });
    io.stdout.write(
      result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`,
    );
    if (result.truncated) write(io.stderr, 'birdie: output truncated at the output cap');
    return result.exitCode && result.exitCode !== 0 ? EXIT_RUN : EXIT_OK;
  } catch (error) {
    if (error instanceof EntrypointError) {
      if (error.output) io.stdout.write(error.output.endsWith('\n') ? error.output : `${error.output}\n`);
      throw new CliError(`tool ${name} failed (${error.code}): ${error.message}`, EXIT_RUN, { cause: error });
    }
    throw error;
  } finally {
    stopListening();
  }
}

/** The session must exist: a typo would otherwise start an empty plan in a folder no session owns. */
async function toolSessionEnv(io: CommandContext['io'], id: string): Promise<Record<string, string>> {
  const store = await openUserStore(io);
  try {
    const session = await findSession(store, id);
    // What a turn of the session gives its tools (the agent adds BIRDIE_SESSION_ID there).
    return { ...(await sessionToolEnv(io.env, session.id)), BIRDIE_SESSION_ID: session.id };
  } finally {
    store.close();
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
