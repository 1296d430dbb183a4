import { withDefaults } from './args.js';
import { sandboxRequest } from './confinement.js';
import { childEnv } from './env.js';
import { EntrypointError, type EntrypointErrorCode } from './errors.js';
import { sandboxWriteNote } from './exit-status.js';
import { limitsOf } from './limits.js';
import { pythonTarget } from './module-target.js';
import { runProcess } from './process.js';
import { PYTHON_RUNNER } from './python-runner.js';
import { resultText } from './result-text.js';
import { envelopeLimits, noResultError, parseEnvelope, truncatedResult } from './runner-envelope.js';
import type { Entrypoint, RunOptions, RunResult, SchemeContext } from './types.js';

const RUNNER_CODES = new Set<EntrypointErrorCode>([
  'module-not-found',
  'export-not-found',
  'path-escape',
  'call-failed',
]);

/** `python:<module>.<function>`: python3 in a child process, arguments as JSON on stdin, result as JSON on stdout. */
export function pythonScheme(target: string, context: SchemeContext): Entrypoint {
  const where = context.entrypoint;
  const parsed = pythonTarget(target);
  if (!parsed) {
    throw new EntrypointError(
      'bad-entrypoint',
      `${where}: expected python:<module>.<function> (dotted Python names)`,
    );
  }
  const { moduleName, functionName } = parsed;

  return {
    scheme: 'python',
    raw: false,
    placeholders: [],
    confinement: context.settings?.sandbox === true ? 'sandbox' : 'none',
    async run(args: Record<string, unknown>, options: RunOptions = {}): Promise<RunResult> {
      const limits = limitsOf(options);
      const input = JSON.stringify(withDefaults(args, context.schema));
      const sandbox = sandboxRequest(context.settings, options, context.skillDir);
      const env = childEnv({ PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8', ...options.env });
      const spec = {
        command: 'python3',
        args: ['-c', PYTHON_RUNNER, context.skillDir, moduleName, functionName],
        cwd: options.cwd ?? context.skillDir,
        env,
        input,
        mergeStderr: false,
        label: where,
        ...(sandbox ? { sandbox } : {}),
        // stdout is the JSON envelope; what the function prints goes to stderr (see python-runner.ts).
        ...(options.onOutput ? { onOutput: options.onOutput, liveStreams: 'stderr' as const } : {}),
      };
      const outcome = await runProcess(spec, envelopeLimits(limits), options.signal).catch(
        (error: unknown) => {
          throw missingPython(error, env.PATH) ?? error;
        },
      );
      if (outcome.truncated) return truncatedResult(outcome, limits);
      const envelope = parseEnvelope(outcome.output);
      if (envelope?.ok === true)
        return {
          ...resultText(envelope.result, limits.maxOutputBytes, where, limits.maxImageBytes),
          exitCode: 0,
        };
      const stderr = outcome.stderrTail ? `\n${outcome.stderrTail}` : '';
      const note = sandboxWriteNote(outcome, `${envelope?.error ?? ''}\n${outcome.stderrTail}`);
      const exitCode = outcome.exitCode ?? undefined;
      if (envelope && RUNNER_CODES.has(envelope.kind as EntrypointErrorCode)) {
        throw new EntrypointError(
          envelope.kind as EntrypointErrorCode,
          `${where}: ${envelope.error}${stderr}${note}`,
          {
            ...(exitCode === undefined ? {} : { exitCode }),
          },
        );
      }
      if (outcome.exitCode === 127 && !outcome.output) {
        throw new EntrypointError('python-missing', `python3 could not run for ${where}${stderr}`, {
          exitCode: 127,
        });
      }
      throw noResultError(outcome, 'python3', where, note);
    },
  };
}

function missingPython(error: unknown, path: string | undefined): EntrypointError | undefined {
  if (!(error instanceof EntrypointError) || error.code !== 'spawn-failed') return undefined;
  if ((error.cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') return undefined;
  if (error.message.includes('working directory')) return undefined;
  return new EntrypointError(
    'python-missing',
    `python3 was not found on PATH (${path ?? 'unset'}); install Python 3 or pass a PATH that contains it to use python: entrypoints`,
    { cause: error.cause },
  );
}
