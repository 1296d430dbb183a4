import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { childEnv } from './env.js';
import type { EntrypointError } from './errors.js';
import type { Limits } from './limits.js';
import { callFailed, exportMissing, importFailed } from './node-failures.js';
import { NODE_RUNNER } from './node-runner.js';
import { runProcess } from './process.js';
import { notSerialisable, resultText } from './result-text.js';
import { envelopeLimits, noResultError, parseEnvelope, truncatedResult } from './runner-envelope.js';
import type { RunOptions, RunResult } from './types.js';

export interface NodeChildCall {
  /** The module's real path (already checked to lie inside the skill folder). */
  file: string;
  /** The module path as the entrypoint names it, for messages. */
  modulePath: string;
  exportName: string;
  where: string;
  args: Record<string, unknown>;
  cwd: string;
  sandbox: { network: boolean; skillDir: string };
}

/**
 * One `node:` call in a child process under the sandbox: this Node binary runs NODE_RUNNER, which imports the module
 * there. The arguments travel on stdin and the result comes back as a JSON envelope on stdout (never argv); the child
 * gets the cleaned environment every child gets (no API keys), the call's timeout and output cap, and no handle on
 * the application (`context.files` is absent).
 */
export async function runNodeChild(
  call: NodeChildCall,
  limits: Limits,
  options: RunOptions,
): Promise<RunResult> {
  const { where } = call;
  const given = { ...options.env };
  const spec = {
    command: process.execPath,
    args: ['--input-type=module', '-e', NODE_RUNNER, call.file, call.exportName],
    cwd: call.cwd,
    env: childEnv(given),
    input: JSON.stringify({ args: call.args, cwd: call.cwd, env: given }),
    mergeStderr: false,
    label: where,
    // The Node.js running the application runs the tool: its installation is shown wherever it lies (nvm's is in
    // the home, which the sandbox hides).
    sandbox: { ...call.sandbox, programDirs: [nodeInstallation()] },
    // stdout is the JSON envelope; what the function prints goes to stderr (see node-runner.ts).
    ...(options.onOutput ? { onOutput: options.onOutput, liveStreams: 'stderr' as const } : {}),
  };
  const outcome = await runProcess(spec, envelopeLimits(limits), options.signal);
  if (outcome.truncated) return truncatedResult(outcome, limits);
  const envelope = parseEnvelope(outcome.output);
  if (envelope?.ok === true)
    return resultText(envelope.result, limits.maxOutputBytes, where, limits.maxImageBytes);
  const error = envelope && failureOf(envelope.kind, envelope.error ?? '', call);
  if (!error) throw noResultError(outcome, 'node', where);
  // The tool's prints and the stack the runner printed: what the in-process call's author would see in a debugger.
  if (outcome.stderrTail) error.message += `\n${outcome.stderrTail}`;
  throw error;
}

function failureOf(
  kind: string | undefined,
  reason: string,
  call: NodeChildCall,
): EntrypointError | undefined {
  if (kind === 'module-not-found') return importFailed(call.where, call.modulePath, reason);
  if (kind === 'export-not-found') return exportMissing(call.where, call.modulePath, call.exportName);
  if (kind === 'call-failed') return callFailed(call.where, reason);
  if (kind === 'bad-output') return notSerialisable(call.where);
  return undefined;
}

/** The folder Node.js is installed in (`<prefix>` of `<prefix>/bin/node`), followed through symlinks. */
export function nodeInstallation(): string {
  let node = process.execPath;
  try {
    node = realpathSync(node);
  } catch {
    // the path as the process knows it
  }
  return dirname(dirname(node));
}
