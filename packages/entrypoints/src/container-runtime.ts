import { execFile } from 'node:child_process';
import { findExecutable } from './executable.js';

/** Which program runs `container:` tools: `auto` takes podman, else docker, whichever is on PATH. */
export type ContainerRuntimeChoice = 'auto' | 'podman' | 'docker';
export type ContainerRuntimeName = 'podman' | 'docker';

export interface ContainerRuntimeStatus {
  choice: ContainerRuntimeChoice;
  /** The runtime `container:` calls use, when one is on PATH. */
  runtime?: ContainerRuntimeName;
  path?: string;
  /** Why no runtime can be used. */
  reason?: string;
  /**
   * Only with `{ probe: true }`: whether `<runtime> info` succeeded, i.e. the runtime says it can run containers
   * (a docker client without its daemon says no). Starting one may still fail (podman inside some sandboxes).
   */
  works?: boolean;
  /** Why `info` failed. */
  probeFailure?: string;
}

export const CONTAINER_RUNTIME_ENV = 'BIRDIE_CONTAINER_RUNTIME';
const CHOICES: readonly ContainerRuntimeChoice[] = ['auto', 'podman', 'docker'];
let configured: ContainerRuntimeChoice | undefined;

/** Chooses the container runtime from now on (`undefined`: back to `BIRDIE_CONTAINER_RUNTIME`, default `auto`). */
export function configureContainerRuntime(choice?: ContainerRuntimeChoice): void {
  if (choice !== undefined && !CHOICES.includes(choice))
    throw new TypeError(`unknown container runtime: ${choice}`);
  configured = choice;
}

function currentChoice(): ContainerRuntimeChoice {
  if (configured) return configured;
  const raw = process.env[CONTAINER_RUNTIME_ENV]?.trim().toLowerCase();
  return (CHOICES as readonly string[]).includes(raw ?? '') ? (raw as ContainerRuntimeChoice) : 'auto';
}

const INSTALL =
  'install one (Debian/Ubuntu: `sudo apt-get install podman`; or Docker Engine), or set container_runtime to the one you have';

/** The runtime to use, found on this process's PATH (a tool's PATH never chooses the program that isolates it). */
export function findRuntime(): ContainerRuntimeStatus {
  const choice = currentChoice();
  const path = process.env.PATH ?? '';
  const names: ContainerRuntimeName[] = choice === 'auto' ? ['podman', 'docker'] : [choice];
  for (const name of names) {
    const found = findExecutable(name, path);
    if (found) return { choice, runtime: name, path: found };
  }
  const reason =
    choice === 'auto'
      ? `no container runtime: neither podman nor docker is on PATH; ${INSTALL}`
      : `the container runtime is set to ${choice}, but ${choice} is not on PATH; ${INSTALL}`;
  return { choice, reason };
}

/** Which runtime `container:` calls would use; with `probe`, also whether it says it works (runs `<runtime> info`). */
export async function containerRuntimeStatus(
  options: { probe?: boolean } = {},
): Promise<ContainerRuntimeStatus> {
  const status = findRuntime();
  if (!options.probe || !status.path) return status;
  const failure = await new Promise<string | undefined>((resolve) => {
    execFile(
      status.path!,
      ['info'],
      { timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
      (error, _out, err) => {
        if (!error) return resolve(undefined);
        resolve(String(err).trim().split('\n').slice(-2).join(' ') || error.message);
      },
    );
  });
  return failure === undefined
    ? { ...status, works: true }
    : { ...status, works: false, probeFailure: failure };
}

/** What one call asks of the runtime. */
export interface ContainerRun {
  runtime: ContainerRuntimeName;
  image: string;
  /** The command and its arguments, already final (argv words, never a shell string). */
  argv: string[];
  /** A unique container name, so that a cancelled call can be removed by it. */
  name: string;
  /** Absolute host path mounted at /work. */
  cwd: string;
  writable: boolean;
  network: boolean;
  memory?: string;
  cpus?: number;
  pids?: number;
  /** Names of environment variables passed in (their values travel in the runtime's environment, not in argv). */
  env: string[];
  /** The host user, so that files written to a writable /work belong to them: `uid:gid`, or undefined as root. */
  user?: { uid: number; gid: number };
}

/**
 * The runtime's argv for one call. Every option comes before the image and is fixed by the tool and the
 * application; the model's values only ever appear after the image, as the command's own arguments, which the
 * runtime does not parse.
 */
export function containerArgv(run: ContainerRun): string[] {
  const argv = [
    'run',
    '--rm',
    '--pull=never',
    `--name=${run.name}`,
    // with network: the runtime's default network
    ...(run.network ? [] : ['--network=none']),
    '--read-only',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '--tmpfs=/tmp',
    `--volume=${run.cwd}:/work:${run.writable ? 'rw' : 'ro'}`,
    '--workdir=/work',
  ];
  if (run.memory !== undefined) argv.push(`--memory=${run.memory}`);
  if (run.cpus !== undefined) argv.push(`--cpus=${run.cpus}`);
  if (run.pids !== undefined) argv.push(`--pids-limit=${run.pids}`);
  if (run.user) {
    // rootless podman maps the user to root in the container; keep-id maps it to the same uid instead
    argv.push(run.runtime === 'podman' ? '--userns=keep-id' : `--user=${run.user.uid}:${run.user.gid}`);
  }
  for (const name of run.env) argv.push(`--env=${name}`);
  argv.push(run.image, ...run.argv);
  return argv;
}

/** Best effort: removes a container a cancelled call left running (docker's lives in its daemon, not in our tree). */
export function forceRemove(path: string, name: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    execFile(path, ['rm', '--force', name], { timeout: 15_000, env }, () => resolve());
  });
}
