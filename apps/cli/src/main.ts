import { parseArgv } from './argv.js';
import type { CommandContext } from './command-context.js';
import { installChangedMessage } from './install-changed.js';
import { EXIT_OK, EXIT_RUN, EXIT_USAGE, type Io, isFailure, unseenEscaped, write } from './io.js';
import { cliVersion } from './version.js';

type Handler = (ctx: CommandContext) => Promise<number>;

/** Each command's module (and the help text) is imported only when it runs, so `--version` loads nothing else. */
const handlers: Record<string, () => Promise<Handler>> = {
  '': async () => (await import('./commands/repl.js')).replCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  acp: async () => (await import('./commands/acp.js')).acpCommand,
  'skills list': async () => (await import('./commands/skills-list.js')).skillsListCommand,
  'skills check': async () => (await import('./commands/skills-check.js')).skillsCheckCommand,
  'skills new': async () => (await import('./commands/skills-new.js')).skillsNewCommand,
  'agents list': async () => (await import('./commands/agents-list.js')).agentsListCommand,
  'agents check': async () => (await import('./commands/agents-check.js')).agentsCheckCommand,
  'agents new': async () => (await import('./commands/agents-new.js')).agentsNewCommand,
  tool: async () => (await import('./commands/tool.js')).toolCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  'mcp add': async () => (await import('./commands/mcp-skills.js')).mcpAddCommand,
  'mcp list': async () => (await import('./commands/mcp-skills.js')).mcpListCommand,
  'mcp remove': async () => (await import('./commands/mcp-skills.js')).mcpRemoveCommand,
  'sessions list': async () => (await import('./commands/sessions.js')).sessionsListCommand,
  'sessions show': async () => (await import('./commands/sessions.js')).sessionsShowCommand,
  'sessions rename': async () => (await import('./commands/sessions.js')).sessionsRenameCommand,
  resume: async () => (await import('./commands/resume.js')).resumeCommand,
  'sessions delete': async () => (await import('./commands/sessions.js')).sessionsDeleteCommand,
  'sessions repair': async () => (await import('./commands/sessions.js')).sessionsRepairCommand,
  trust: async () => (await import('./commands/trust.js')).trustCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
  setup: async () => (await import('./commands/setup.js')).setupCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
  logs: async () => (await import('./commands/logs.js')).logsCommand,
  'logs show': async () => (await import('./commands/logs.js')).logsShowCommand,
  start: async () => (await import('./commands/start.js')).startCommand,
  'tasks list': async () => (await import('./commands/tasks.js')).tasksListCommand,
  'tasks cancel': async () => (await import('./commands/tasks.js')).tasksCancelCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  channels: async () => (await import('./commands/channels.js')).channelsCommand,
  'tokens create': async () => (await import('./commands/tokens.js')).tokensCreateCommand,
  'tokens list': async () => (await import('./commands/tokens.js')).tokensListCommand,
  'tokens revoke': async () => (await import('./commands/tokens.js')).tokensRevokeCommand,
  'db status': async () => (await import('./commands/db.js')).dbStatusCommand,
  'db migrate': async () => (await import('./commands/db.js')).dbMigrateCommand,
};

/** Runs one invocation and returns its exit code; never calls `process.exit` itself. */
export async function main(argv: string[], io: Io): Promise<number> {
  // Set once the command line is read: a script asked for JSON on stdout, and gets its failure there too.
  let failureAsJson = false;
  try {
    const parsed = parseArgv(argv);
    if (parsed.kind === 'version') {
      write(io.stdout, cliVersion());
      return EXIT_OK;
    }
    if (parsed.kind === 'group-help') {
      const { groupHelp } = await import('./help.js');
      io.stdout.write(groupHelp(parsed.group));
      return EXIT_OK;
    }
    if (parsed.kind === 'help') {
      const { commandHelp, mainHelp } = await import('./help.js');
      io.stdout.write(parsed.command ? commandHelp(parsed.command) : mainHelp(cliVersion()));
      return EXIT_OK;
    }
    failureAsJson = parsed.values.json === true && parsed.command.jsonFailure !== 'own';
    const handler = await handlers[parsed.command.name]!();
    // The runtime reads the bundled layer from the CLI's own package folders, never from the working folder.
    const withBundled: Io = (await import('./paths.js')).withBundledLayer(io);
    return await handler({ io: withBundled, values: parsed.values, positionals: parsed.positionals });
  } catch (caught) {
    const reported = { json: false };
    try {
      return await reportFailure(caught, io, failureAsJson, reported);
    } catch (reporting) {
      // Reporting loads modules only now: after an upgrade they may be gone. The failure is said without them.
      const changed = installChangedMessage(reporting);
      if (!changed) throw reporting;
      return reportPlainly(caught, changed, io, failureAsJson && !reported.json);
    }
  }
}

/** Says why the command failed (on stdout too as JSON when it was asked for); returns the exit code. */
async function reportFailure(
  caught: unknown,
  io: Io,
  failureAsJson: boolean,
  reported: { json: boolean },
): Promise<number> {
  const changed = installChangedMessage(caught);
  if (changed) return reportPlainly(undefined, changed, io, failureAsJson);
  // A store failure that no command translated still gets its one wording, never a stack trace.
  const { isStoreErrorLike, storeFailure } = await import('@birdie/runtime/store-failure');
  const error = isStoreErrorLike(caught) ? storeFailure(caught) : caught;
  if (failureAsJson) {
    const { printFailureJson, wasPrinted } = await import('./render/failure-json.js');
    // A command that printed its own object (with its fields) printed it for the error it threw.
    if (!wasPrinted(caught)) printFailureJson(io.stdout, error);
    reported.json = true;
  }
  if (isFailure(error)) {
    // A failure may quote a name from a skill file or the command line: its control characters are pictured, its
    // line breaks kept.
    const { visible } = await import('@birdie/terminal/terminal-text');
    write(io.stderr, `birdie: ${error.message.split('\n').map(visible).join('\n')}`);
    return error.exitCode;
  }
  write(
    io.stderr,
    `birdie: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return EXIT_RUN;
}

/**
 * The failure said with the modules already loaded only: `caught` (when there was one besides the missing file) in
 * its own words and exit code, then why nothing more could be said. With `--json`, one object on stdout, its code as
 * `failureJson` gives it (which may be one of the missing files): `usage`, a store failure's own, `failure`, `internal`.
 */
function reportPlainly(caught: unknown, changed: string, io: Io, asJson: boolean): number {
  if (caught === undefined) {
    if (asJson)
      write(io.stdout, JSON.stringify({ ok: false, error: { code: 'install-changed', message: changed } }));
    write(io.stderr, `birdie: ${changed}`);
    return EXIT_RUN;
  }
  const message = caught instanceof Error ? caught.message : String(caught);
  const store = storeCodeOf(caught);
  const code =
    isFailure(caught) && caught.exitCode === EXIT_USAGE
      ? 'usage'
      : (store ?? (isFailure(caught) ? 'failure' : 'internal'));
  if (asJson) write(io.stdout, JSON.stringify({ ok: false, error: { code, message, hint: changed } }));
  // A bug keeps its stack, as `reportFailure` prints it.
  const said = code === 'internal' && caught instanceof Error ? (caught.stack ?? message) : message;
  write(io.stderr, `birdie: ${unseenEscaped(said, false)}`);
  write(io.stderr, `birdie: ${changed}`);
  if (isFailure(caught)) return caught.exitCode;
  // A busy session has its own exit code (the runtime's `EXIT_BUSY`), whoever threw it.
  return store === 'session-busy' ? EXIT_BUSY : EXIT_RUN;
}

/** The code of the store failure `error` is or wraps (recognised by name, so nothing is loaded to tell). */
function storeCodeOf(error: unknown): string | undefined {
  for (const e of [error, error instanceof Error ? error.cause : undefined]) {
    const code = (e as { code?: unknown } | undefined)?.code;
    if (e instanceof Error && e.name === 'StoreError' && typeof code === 'string') return code;
  }
  return undefined;
}

/** `birdie`'s exit code for a session another process is using (`@birdie/runtime`'s `EXIT_BUSY`). */
const EXIT_BUSY = 3;
