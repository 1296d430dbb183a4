import type { Confinement } from '@birdie/entrypoints';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import { configFileProblem, explicitConfigPath } from './config.js';
import { configFileThere } from './config-file-there.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { birdieHome, configFile } from './paths.js';
import type { SettingKey, Settings } from './settings.js';

/**
 * The sandbox and container settings, applied to `@birdie/entrypoints` for this process: `--sandbox` or
 * `sandbox: always` confine every bash:/python:/node: tool (the Shell skill's `run_bash` included), except the
 * node: tools birdie ships (the bundled skills folder: filesystem, todo, …), which stay in-process with their own path
 * checks and file access; `container_runtime` picks podman or docker. A tool that declares `sandbox: true` is
 * confined whatever these say.
 */
export async function applyIsolation(
  io: RuntimeIo,
  values: Flags,
  settings: Pick<Settings, 'sandbox' | 'container_runtime'>,
): Promise<void> {
  const { configureSandbox, configureContainerRuntime, configureNodeTools } = await import(
    '@birdie/entrypoints'
  );
  // The birdie folder of this run (BIRDIE_HOME of the CLI's environment) and the config files it read are hidden
  // from every sandboxed tool, wherever they lie (a `--config FILE` in the project folder too).
  configureSandbox(values.sandbox === true || settings.sandbox === 'always' ? 'always' : undefined, {
    hide: [birdieHome(io.env), ...configPaths(io, values)],
  });
  // birdie's own node: tools (the bundled folder) run in its process; a node: tool of any other folder is sandboxed.
  configureNodeTools({ inProcess: io.bundled?.skills ? [io.bundled.skills] : [] });
  configureContainerRuntime(settings.container_runtime === 'auto' ? undefined : settings.container_runtime);
}

/** The settings alone (`birdie tool` needs no model provider): `--config FILE` over `~/.birdie/config.json`. */
export async function loadSettings(io: RuntimeIo, values: Flags): Promise<Settings> {
  return (await loadSettingsWithSources(io, values)).settings;
}

/** The settings and where each came from (a file, or the default), as `birdie config list` and `/info` show them. */
export async function loadSettingsWithSources(
  io: RuntimeIo,
  values: Flags,
): Promise<{ settings: Settings; sources: Record<SettingKey, string> }> {
  const [{ readConfigFile, ProviderError }, { mergeSettings }] = await Promise.all([
    import('@birdie/providers'),
    import('./settings-schema.js'),
  ]);
  try {
    const files = await Promise.all(configPaths(io, values).map((p) => readConfigFile(p)));
    return mergeSettings(files);
  } catch (error) {
    // A file birdie cannot read is the user's to fix (exit 2), as when a start meets it.
    throw error instanceof ProviderError ? configFileProblem(io, error) : error;
  }
}

/**
 * The config files this run reads: `--config FILE`, then the saved `~/.birdie/config.json` when something is there (a
 * link to nothing too: reading it says so).
 */
export function configPaths(io: RuntimeIo, values: Flags): string[] {
  const explicit = explicitConfigPath(io, values);
  const saved = configFile(io.env);
  return [explicit, explicit !== saved && configFileThere(saved) ? saved : undefined].filter(
    (p): p is string => !!p,
  );
}

/** `sandbox` for /info: the mode and whether bubblewrap can run here. */
export async function sandboxSummary(): Promise<string> {
  const { sandboxStatus } = await import('@birdie/entrypoints');
  const status = await sandboxStatus();
  const mode =
    status.mode === 'always'
      ? "always (every bash:, python: and node: tool but birdie's own)"
      : 'tools that declare sandbox: true';
  return status.available ? `${mode} · ${status.version}` : `${mode} · unavailable: ${status.reason}`;
}

/** How one skill tool runs now: `sandbox`, `container`, `in-process` (birdie's own node: tools) or `none`. */
export async function confinementOfTool(skill: Pick<Skill, 'dir'>, tool: SkillTool): Promise<Confinement> {
  const { confinementOf } = await import('@birdie/entrypoints');
  return confinementOf(tool.entrypoint, tool, { skillDir: skill.dir });
}

/**
 * The line `birdie tool` prints (stderr) about where the tool runs. Empty for an unconfined tool when the sandbox is
 * not on (the default, as with every other command); under `--sandbox` an unconfined tool (http:, grpc:) says so.
 */
export async function confinementLine(
  name: string,
  confinement: Confinement,
  cwd: string,
  tool: Pick<SkillTool, 'network' | 'writable' | 'entrypoint'>,
): Promise<string> {
  const network = tool.network ? 'with network access' : 'no network';
  if (confinement === 'sandbox')
    return `birdie: ${name} runs in the sandbox (bubblewrap): writes only in ${cwd} and a private /tmp, ${network}`;
  if (confinement === 'container')
    return `birdie: ${name} runs in a container: ${cwd} at /work (${tool.writable ? 'read-write' : 'read-only'}), ${network}`;
  if (confinement === 'in-process')
    return `birdie: ${name} runs in-process, not in the sandbox: birdie's own tool, confined by its own path checks`;
  const { sandboxStatus } = await import('@birdie/entrypoints');
  if ((await sandboxStatus()).mode !== 'always') return '';
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/.exec(tool.entrypoint)?.[1] ?? 'its';
  return `birdie: ${name} runs unconfined: the sandbox confines bash:, python: and node: tools, not ${scheme}: ones`;
}
