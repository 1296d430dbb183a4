import { argumentValue, processArgumentText } from './args.js';
import { type OptionExposure, optionProblem } from './bash-options.js';
import { analyseBashTemplate } from './bash-script.js';
import { sandboxRequest } from './confinement.js';
import { childEnv } from './env.js';
import { EntrypointError } from './errors.js';
import { mergedFailureNote, sandboxWriteNote, signalNote } from './exit-status.js';
import { integerProblem } from './integer-argument.js';
import { limitsOf } from './limits.js';
import { runProcess, succeeded } from './process.js';
import type { TargetAnalysis } from './target.js';
import type { Entrypoint, RunOptions, RunResult, SchemeContext } from './types.js';

/** `$0` of every templated script; shows up in bash's own error messages. */
const SCRIPT_NAME = 'birdie';

/**
 * `bash:<template>`. The template compiles once into a script that only references positional parameters;
 * argument values travel as separate argv words and are never parsed as shell text.
 */
export function analyseBash(template: string, context: SchemeContext): TargetAnalysis {
  if (!template.trim()) {
    return {
      problems: [{ code: 'bad-template', message: `${context.entrypoint}: empty command` }],
      placeholders: [],
    };
  }
  if (template === '{command}') {
    const placeholders = [{ name: 'command', offset: 0 }];
    return {
      problems: [],
      placeholders,
      build: () => bashEntrypoint(true, '', ['command'], new Map(), new Set(), context),
    };
  }
  let analysis: ReturnType<typeof analyseBashTemplate>;
  try {
    analysis = analyseBashTemplate(template, context.schema);
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return { problems: [{ code: error.code, message: error.message, ...offsetOf(error) }], placeholders: [] };
  }
  const problems = analysis.problems.map((p) => ({
    code: 'bad-template' as const,
    message: `bash:${template}: ${p.message}`,
    offset: p.offset,
  }));
  const { script, names, options, integers, warnings } = analysis;
  return {
    problems,
    placeholders: analysis.placeholders,
    warnings,
    build: () => ({
      ...bashEntrypoint(false, script, names, options, integers, context),
      ...(warnings.length > 0 ? { runsCode: warnings } : {}),
    }),
  };
}

export function bashScheme(template: string, context: SchemeContext): Entrypoint {
  const analysis = analyseBash(template, context);
  const problem = analysis.problems[0];
  if (problem) throw new EntrypointError(problem.code, problem.message, offsetOf(problem));
  return analysis.build!();
}

const offsetOf = (p: { offset?: number }) => (p.offset === undefined ? {} : { offset: p.offset });

function bashEntrypoint(
  raw: boolean,
  script: string,
  names: readonly string[],
  exposures: ReadonlyMap<string, OptionExposure>,
  integers: ReadonlySet<string>,
  context: SchemeContext,
): Entrypoint {
  return {
    scheme: 'bash',
    raw,
    placeholders: [...names],
    confinement: context.settings?.sandbox === true ? 'sandbox' : 'none',
    async run(args: Record<string, unknown>, options: RunOptions = {}): Promise<RunResult> {
      // Values are checked before anything starts, so a bad argument never half-runs a command.
      const values = names.map((name) => {
        const value = argumentValue(args, name, context.schema);
        const text = processArgumentText(name, value);
        const property = context.schema?.properties?.[name];
        const problem =
          (integers.has(name) ? integerProblem(name, value, property) : undefined) ??
          optionsProblem(name, value, exposures.get(name), property);
        if (problem) throw new EntrypointError('bad-argument', problem);
        return text;
      });
      // `--` ends bash's own options: a raw command such as `--version; ls` is the command string, not a flag.
      const argv = raw ? ['-c', '--', values[0]!] : ['-c', '--', script, SCRIPT_NAME, ...values];
      return runCommand('bash', argv, context, options, 'command');
    },
  };
}

function optionsProblem(
  name: string,
  value: unknown,
  exposure: OptionExposure | undefined,
  property: Record<string, unknown> | undefined,
): string | undefined {
  return exposure && optionProblem(name, value, exposure, property);
}

export async function runCommand(
  command: string,
  argv: string[],
  context: SchemeContext,
  options: RunOptions,
  label: string,
): Promise<RunResult> {
  const sandbox = sandboxRequest(context.settings, options, context.skillDir);
  const outcome = await runProcess(
    {
      command,
      args: argv,
      cwd: options.cwd ?? context.skillDir,
      env: childEnv(options.env),
      mergeStderr: true,
      label,
      ...(sandbox ? { sandbox } : {}),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    },
    limitsOf(options),
    options.signal,
  );
  if (outcome.exitCode === 0) return succeeded(outcome);
  const status =
    outcome.exitCode === null
      ? `was killed by ${outcome.signal ?? 'a signal'}`
      : `exited with code ${outcome.exitCode}${signalNote(outcome)}`;
  const note = `${mergedFailureNote(outcome)}${sandboxWriteNote(outcome, outcome.output)}`;
  throw new EntrypointError('non-zero-exit', `${label} ${status}${note}`, {
    output: outcome.output,
    ...(outcome.exitCode === null ? {} : { exitCode: outcome.exitCode }),
  });
}
