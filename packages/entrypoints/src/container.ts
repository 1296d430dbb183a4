import { randomBytes } from 'node:crypto';
import { argumentValue, processArgumentText } from './args.js';
import { optionProblem } from './bash-options.js';
import { type ContainerRun, containerArgv, findRuntime, forceRemove } from './container-runtime.js';
import { type ContainerTemplate, parseContainerTemplate } from './container-template.js';
import { childEnv } from './env.js';
import { EntrypointError } from './errors.js';
import { mergedFailureNote } from './exit-status.js';
import { limitsOf } from './limits.js';
import { type ProcessOutcome, runProcess, succeeded } from './process.js';
import type { EntrypointProblem, TargetAnalysis } from './target.js';
import type { RunOptions, RunResult, SchemeContext, ToolSettings } from './types.js';

const MEMORY = /^[1-9]\d*(?:\.\d+)?[bkmg]?$/i;

/** `container:IMAGE command {args}`: the command in a fresh container of a local image, through podman or docker. */
export function analyseContainer(target: string, context: SchemeContext): TargetAnalysis {
  const where = context.entrypoint;
  const { problems, template, placeholders } = parseContainerTemplate(target, where);
  problems.push(...settingsProblems(context.settings, where));
  if (!template || problems.length > 0) return { problems, placeholders };
  return {
    problems,
    placeholders,
    build: () => ({
      scheme: 'container',
      raw: false,
      placeholders: [...template.names],
      confinement: 'container',
      run: (args, options = {}) => runContainer(template, args, context, options),
    }),
  };
}

function settingsProblems(settings: ToolSettings | undefined, where: string): EntrypointProblem[] {
  const problems: EntrypointProblem[] = [];
  const bad = (message: string) => problems.push({ code: 'bad-entrypoint', message: `${where}: ${message}` });
  if (settings?.memory !== undefined && !MEMORY.test(String(settings.memory)))
    bad(`memory: ${JSON.stringify(settings.memory)} is not a size such as 512m or 2g`);
  if (settings?.cpus !== undefined && !(typeof settings.cpus === 'number' && settings.cpus > 0))
    bad(`cpus: ${JSON.stringify(settings.cpus)} is not a positive number`);
  if (settings?.pids !== undefined && !(Number.isInteger(settings.pids) && settings.pids > 0))
    bad(`pids: ${JSON.stringify(settings.pids)} is not a positive whole number`);
  return problems;
}

/** The command's argv for these arguments: each word one argv entry, values inside their word, nothing parsed. */
export function containerCommand(
  template: ContainerTemplate,
  args: Record<string, unknown>,
  context: Pick<SchemeContext, 'schema'>,
): string[] {
  const values = new Map<string, string>();
  for (const name of template.names) {
    const value = argumentValue(args, name, context.schema);
    const text = processArgumentText(name, value);
    const exposure = template.exposures.get(name);
    const problem = exposure && optionProblem(name, value, exposure, context.schema?.properties?.[name]);
    if (problem) throw new EntrypointError('bad-argument', problem);
    values.set(name, text);
  }
  return template.words.map((word) =>
    word.pieces.map((piece) => (piece.kind === 'text' ? piece.text : values.get(piece.name)!)).join(''),
  );
}

async function runContainer(
  template: ContainerTemplate,
  args: Record<string, unknown>,
  context: SchemeContext,
  options: RunOptions,
): Promise<RunResult> {
  // Arguments first: a bad one never reaches the runtime.
  const argv = containerCommand(template, args, context);
  const found = findRuntime();
  if (!found.path || !found.runtime) throw new EntrypointError('container-runtime-missing', found.reason!);
  const cwd = options.cwd ?? context.skillDir;
  if (/[:,]/.test(cwd)) {
    throw new EntrypointError(
      'spawn-failed',
      `could not start the container: the working directory ${cwd} holds ':' or ',', which ${found.runtime} cannot mount`,
    );
  }
  const settings = context.settings ?? {};
  const uid = process.getuid?.();
  const run: ContainerRun = {
    runtime: found.runtime,
    image: template.image,
    argv,
    name: `birdie-${process.pid}-${randomBytes(6).toString('hex')}`,
    cwd,
    writable: settings.writable === true,
    network: settings.network === true,
    ...(settings.memory !== undefined ? { memory: settings.memory } : {}),
    ...(settings.cpus !== undefined ? { cpus: settings.cpus } : {}),
    ...(settings.pids !== undefined ? { pids: settings.pids } : {}),
    env: Object.keys(options.env ?? {}),
    ...(uid !== undefined && uid !== 0 ? { user: { uid, gid: process.getgid!() } } : {}),
  };
  const env = childEnv(options.env);
  let outcome: ProcessOutcome;
  try {
    outcome = await runProcess(
      {
        command: found.path,
        args: containerArgv(run),
        cwd,
        env,
        mergeStderr: true,
        label: `container ${template.image}`,
        ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      },
      limitsOf(options),
      options.signal,
    );
  } catch (error) {
    // A killed client does not always take its container along (docker's runs in the daemon): remove it by name.
    if (error instanceof EntrypointError && (error.code === 'timeout' || error.code === 'aborted'))
      await forceRemove(found.path, run.name, env);
    throw error;
  }
  if (outcome.exitCode === 0) return succeeded(outcome);
  throw outcomeError(outcome, found.runtime, template.image);
}

const IMAGE_MISSING =
  /no such image|image not known|unable to find image|manifest unknown|repository does not exist|pull access denied|image .* not found/i;
/** podman reports an OCI runtime that cannot start the container (crun, runc) with exit code 126. */
const OCI_FAILURE = /\bOCI\b|\bcrun:|\brunc:/;
const DAEMON_MISSING =
  /cannot connect to the docker daemon|is the docker daemon running|docker daemon is not running/i;

/** The runtime's own failures (exit 125) named for what is missing; the command's failures as non-zero-exit. */
function outcomeError(outcome: ProcessOutcome, runtime: string, image: string): EntrypointError {
  const tail = outcome.stderrTail;
  const exit = outcome.exitCode === null ? {} : { exitCode: outcome.exitCode };
  // The runtime's own failures quote its stderr in the message; the output (that same stderr) is not attached twice.
  const details = exit;
  if (outcome.exitCode === 125 && IMAGE_MISSING.test(tail)) {
    return new EntrypointError(
      'container-image-missing',
      `the image ${image} is not present in ${runtime}'s local images, and images are never pulled implicitly: run \`${runtime} pull ${image}\` (or build it) first\n${runtime}: ${tail}`,
      details,
    );
  }
  if (outcome.exitCode === 125 && DAEMON_MISSING.test(tail)) {
    return new EntrypointError(
      'container-runtime-missing',
      `${runtime} is installed, but its daemon is not running or not reachable, so no container can start: start it (\`sudo systemctl start docker\`) or use podman\n${runtime}: ${tail}`,
      details,
    );
  }
  if (outcome.exitCode === 125 || (outcome.exitCode === 126 && OCI_FAILURE.test(tail))) {
    return new EntrypointError(
      'container-failed',
      `${runtime} could not run the container (exit code ${outcome.exitCode}):\n${tail}`,
      details,
    );
  }
  const status =
    outcome.exitCode === null
      ? `was killed by ${outcome.signal ?? 'a signal'}`
      : `exited with code ${outcome.exitCode}`;
  const note =
    outcome.exitCode === 127
      ? ' (the command was not found in the image)'
      : outcome.exitCode === 126
        ? ' (the command in the image could not be run)'
        : '';
  return new EntrypointError(
    'non-zero-exit',
    `command in container ${image} ${status}${note}${mergedFailureNote(outcome)}`,
    { output: outcome.output, ...exit },
  );
}
