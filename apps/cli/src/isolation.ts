import { existsSync } from 'node:fs';
import type { SkillTool } from '@birdie/skill-parser';
import type { Values } from './argv.js';
import { configFileProblem, explicitConfigPath } from './config.js';
import type { Io } from './io.js';
import { birdieHome, configFile } from './paths.js';
import type { SettingKey, Settings } from './settings.js';

/**
 * The sandbox and container settings, applied to `@birdie/entrypoints` for this process: `--sandbox` or
 * `sandbox: always` confine every bash:/python: tool (the Shell skill's `run_bash` included); `container_runtime`
 * picks podman or docker. A tool that declares `sandbox: true` is confined whatever these say.
 */
export async function applyIsolation(
  io: Io,
  values: Values,
  settings: Pick<Settings, 'sandbox' | 'container_runtime'>,
): Promise<void> {
  const { configureSandbox, configureContainerRuntime } = await import('@birdie/entrypoints');
  // The birdie folder of this run (BIRDIE_HOME of the CLI's environment) and the config files it read are hidden
  // from every sandboxed tool, wherever they lie (a `--config FILE` in the project folder too).
  configureSandbox(values.sandbox === true || settings.sandbox === 'always' ? 'always' : undefined, {
    hide: [birdieHome(io.env), ...configPaths(io, values)],
  });
  configureContainerRuntime(settings.container_runtime === 'auto' ? undefined : settings.container_runtime);
}

/** The settings alone (`birdie tool` needs no model provider): `--config FILE` over `~/.birdie/config.json`. */
export async function loadSettings(io: Io, values: Values): Promise<Settings> {
  return (await loadSettingsWithSources(io, values)).settings;
}

/** The settings and where each came from (a file, or the default), as `birdie config list` and `/info` show them. */
export async function loadSettingsWithSources(
  io: Io,
  values: Values,
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

/** The config files this run reads: `--config FILE`, then the saved `~/.birdie/config.json` when it exists. */
export function configPaths(io: Io, values: Values): string[] {
  const explicit = explicitConfigPath(io, values);
  const saved = configFile(io.env);
  return [explicit, explicit !== saved && existsSync(saved) ? saved : undefined].filter(
    (p): p is string => !!p,
  );
}

/** `sandbox` for /info: the mode and whether bubblewrap can run here. */
export async function sandboxSummary(): Promise<string> {
  const { sandboxStatus } = await import('@birdie/entrypoints');
  const status = await sandboxStatus();
  const mode =
    status.mode === 'always' ? 'always (every bash: and python: tool)' : 'tools that declare sandbox: true';
  return status.available ? `${mode} · ${status.version}` : `${mode} · unavailable: ${status.reason}`;
}

/** How one skill tool runs now: `sandbox`, `container` or `none`. */
export async function confinementOfTool(tool: SkillTool): Promise<'none' | 'sandbox' | 'container'> {
  const { confinementOf } = await import('@birdie/entrypoints');
  return confinementOf(tool.entrypoint, tool);
}

/** The line `birdie tool` prints (stderr) for a confined tool; empty for one that runs on the host. */
export function confinementLine(
  name: string,
  confinement: 'none' | 'sandbox' | 'container',
  cwd: string,
  tool: Pick<SkillTool, 'network' | 'writable'>,
): string {
  const network = tool.network ? 'with network access' : 'no network';
  if (confinement === 'sandbox')
    return `birdie: ${name} runs in the sandbox (bubblewrap): writes only in ${cwd} and a private /tmp, ${network}`;
  if (confinement === 'container')
    return `birdie: ${name} runs in a container: ${cwd} at /work (${tool.writable ? 'read-write' : 'read-only'}), ${network}`;
  return '';
}
