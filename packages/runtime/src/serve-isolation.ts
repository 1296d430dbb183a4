import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { RegistrySnapshot } from '@birdie/registry';
import type { WorkspaceOptions } from '@birdie/server';
import type { Skill } from '@birdie/skill-parser';
import { EXIT_RUN, RuntimeError, UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { ensureFolder } from './folders.js';
import type { RuntimeIo } from './io.js';
import { configPaths } from './isolation.js';
import { birdieHome, resolveFrom } from './paths.js';
import type { Settings } from './settings.js';

/** What `birdie serve` confines its users' tools with (see `serveIsolation`). */
export interface ServeIsolation {
  workspaces: WorkspaceOptions;
  /** Whether the root is this worker's own default (inside its BIRDIE_HOME), not a folder the operator chose. */
  defaultRoot: boolean;
  /** The shell, Python and non-bundled node: tools API sessions may use (they run sandboxed). */
  shellTools: string[];
  /** `bubblewrap 0.8.0`, when any shell tool is allowed. */
  sandboxVersion?: string;
}

/**
 * The isolation of API sessions, applied to this process before it serves: a workspace per user (or session) under
 * one root (`--workspaces`, `serve.workspaces`, default `~/.birdie/workspaces`), and every `bash:`/`python:` tool in
 * the bubblewrap sandbox whatever a session asks, with the birdie folder, the workspace root and the server account's
 * home hidden (a tool sees only its own workspace, bound back over it) and no network unless `serve.sandbox.network`. Throws when such tools
 * are allowed and bubblewrap cannot run here: they never run unconfined under `serve`.
 */
export async function serveIsolation(
  io: RuntimeIo,
  values: Flags,
  settings: Pick<Settings, 'serve' | 'skills'>,
  snapshot: RegistrySnapshot,
  /** Whether API sessions may use the skill (the operator's policy); those they may not need no sandbox here. */
  allowed: (skill: Skill) => boolean,
): Promise<ServeIsolation> {
  const { configureSandbox, sandboxStatus } = await import('@birdie/entrypoints');
  const home = birdieHome(io.env);
  const flag = values.workspaces;
  if (flag !== undefined && (typeof flag !== 'string' || flag.trim() === ''))
    throw new UsageError('--workspaces needs a folder');
  const chosen = typeof flag === 'string' ? resolveFrom(io.cwd, flag) : settings.serve.workspaces;
  const root = chosen ?? join(home, 'workspaces');
  // Made now, so the sandbox hides it from the first call on (it hides only folders that exist); with the bounded
  // walk, since Node's recursive mkdir spins for ever under /proc.
  await ensureFolder(
    root,
    0o700,
    'Name a folder the server can make and write with --workspaces DIR (or birdie config set serve.workspaces DIR).',
  );
  // The server account's home too (its keys, cloud credentials, shell history): a user's tool sees only its workspace.
  const accountHomes = [io.env.HOME, homedir()].filter((path): path is string => !!path && isAbsolute(path));
  configureSandbox('always', {
    hide: [home, root, ...accountHomes, ...configPaths(io, values)],
    network: settings.serve.sandbox.network,
  });
  const shellTools = sandboxedTools(snapshot, allowed);
  let sandboxVersion: string | undefined;
  if (shellTools.length > 0) {
    const status = await sandboxStatus();
    if (!status.available)
      throw new RuntimeError(
        `birdie serve runs shell, Python and third-party node: tools (${listed(shellTools)}) only in the sandbox (the bubblewrap ` +
          `package), and it cannot run here: ${status.reason}. Install bubblewrap, or disable those tools' skills ` +
          'for the server (birdie config set skills.disable NAME)',
        EXIT_RUN,
      );
    sandboxVersion = status.version;
  }
  const { workspace_bytes: maxBytes } = settings.serve.limits;
  return {
    workspaces: {
      root,
      per: settings.serve.workspace,
      ...(maxBytes !== undefined ? { maxBytes, maxBytesName: 'serve.limits.workspace_bytes' } : {}),
    },
    defaultRoot: chosen === undefined,
    shellTools,
    ...(sandboxVersion ? { sandboxVersion } : {}),
  };
}

/**
 * The tools of the skills the operator allows API sessions that the sandbox must confine: `bash:`/`python:` ones, and
 * `node:` ones outside the bundled folder (birdie's own node: tools run in-process).
 */
function sandboxedTools(snapshot: RegistrySnapshot, allowed: (skill: Skill) => boolean): string[] {
  return snapshot.skills.filter(allowed).flatMap((skill) => {
    const bundled = snapshot.layerOf(skill.name)?.layer === 'bundled';
    const confined = bundled ? /^\s*(bash|python):/ : /^\s*(bash|python|node):/;
    return skill.tools.filter((tool) => confined.test(tool.entrypoint)).map((tool) => tool.name);
  });
}

function listed(names: string[]): string {
  return names.length > 4 ? `${names.slice(0, 4).join(', ')} and ${names.length - 4} more` : names.join(', ');
}
