import { argumentValue, processArgumentText } from './args.js';
import { type OptionExposure, optionProblem } from './bash-options.js';
import { compileBashTemplate } from './bash-script.js';
import { childEnv } from './env.js';
import { EntrypointError } from './errors.js';
import { limitsOf } from './limits.js';
import { runProcess, tailOf } from './process.js';
import type { Entrypoint, RunOptions, RunResult, SchemeContext } from './types.js';

/** `$0` of every templated script; shows up in bash's own error messages. */
const SCRIPT_NAME = 'birdie';

/**
 * `bash:<template>`. The template compiles once into a script that only references positional parameters;
 * argument values travel as separate argv words and are never parsed as shell text.
 */
export function bashScheme(template: string, context: SchemeContext): Entrypoint {
  if (!template.trim()) throw new EntrypointError('bad-template', `${context.entrypoint}: empty command`);
  const raw = template === '{command}';
  const {
    script,
    names,
    options: exposures,
  } = raw
    ? { script: '', names: ['command'], options: new Map<string, OptionExposure>() }
    : compileBashTemplate(template);

  return {
    scheme: 'bash',
    raw,
    placeholders: [...names],
    async run(args: Record<string, unknown>, options: RunOptions = {}): Promise<RunResult> {
      // Values are checked before anything starts, so a bad argument never half-runs a command.
      const values = names.map((name) => {
        const value = argumentValue(args, name, context.schema);
        const text = processArgumentText(name, value);
        const exposure = exposures.get(name);
        const problem = exposure && optionProblem(name, value, exposure, context.schema?.properties?.[name]);
        if (problem) throw new EntrypointError('bad-argument', problem);
        return text;
      });
      // `--` ends bash's own options: a raw command such as `--version; ls` is the command string, not a flag.
      const argv = raw ? ['-c', '--', values[0]!] : ['-c', '--', script, SCRIPT_NAME, ...values];
      return runCommand('bash', argv, context, options, 'command');
    },
  };
}

export async function runCommand(
  command: string,
  argv: string[],
  context: SchemeContext,
  options: RunOptions,
  label: string,
): Promise<RunResult> {
  const outcome = await runProcess(
    {
      command,
      args: argv,
      cwd: options.cwd ?? context.skillDir,
      env: childEnv(options.env),
      mergeStderr: true,
      label,
    },
    limitsOf(options),
    options.signal,
  );
  if (outcome.exitCode === 0) return { output: outcome.output, exitCode: 0, truncated: outcome.truncated };
  const status =
    outcome.exitCode === null
      ? `was killed by ${outcome.signal ?? 'a signal'}`
      : `exited with code ${outcome.exitCode}`;
  const stderr = outcome.stderrTail ? `\nstderr:\n${outcome.stderrTail}` : '\n(no stderr output)';
  const details = outcome.stderrTail
    ? ''
    : outcome.output.trim()
      ? `\noutput:\n${tailOf(outcome.output)}`
      : '';
  throw new EntrypointError('non-zero-exit', `${label} ${status}${stderr}${details}`, {
    output: outcome.output,
    ...(outcome.exitCode === null ? {} : { exitCode: outcome.exitCode }),
  });
}
