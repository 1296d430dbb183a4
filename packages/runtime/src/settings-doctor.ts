import { join } from 'node:path';
import { NoProviderError } from './config.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';

/** One of `birdie doctor`'s checks of what a run needs from the settings. */
export interface SettingsCheck {
  /** `config` (the config files and the provider), `model` (the `model` setting), `project settings`. */
  check: 'config' | 'model' | 'project settings';
  /** `error`: every run fails (or would run without what the file says); `warning`: worth knowing. */
  severity: 'ok' | 'warning' | 'error';
  /** What was found, with the fix when something is wrong. */
  message: string;
}

/** The fix a problem of `settings.model` ends with in `birdie config`'s wording (`settingsReport`). */
const MODEL_FIX = '`birdie config unset model';

/**
 * What `birdie doctor` finds in the settings, read and resolved the way a run reads them (`loadConfig`, the `model`
 * setting through `resolveModelConfig`, the project's rules through `projectRules`): whatever makes every run stop
 * with exit 2 is an `error` here, worded as the run (or `birdie config`) words it, with the fix.
 */
export async function settingsChecks(io: RuntimeIo, flags: Flags): Promise<SettingsCheck[]> {
  return [...(await configChecks(io, flags)), ...(await projectSettingsChecks(io, flags))];
}

async function configChecks(io: RuntimeIo, flags: Flags): Promise<SettingsCheck[]> {
  const { loadConfig } = await import('./config.js');
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(io, flags);
  } catch (error) {
    // Nothing names a provider: doctor still checks the store, and the message says how to set one.
    if (error instanceof NoProviderError)
      return [{ check: 'config', severity: 'warning', message: error.message }];
    // The problems `birdie config list` words, each with its fix; the model setting's is the `model` check.
    const { settingsReport } = await import('./settings-file.js');
    const problems = await settingsReport(io, flags).then(
      (report) => report.problems,
      () => [] as string[],
    );
    const model = problems.filter((p) => p.includes(MODEL_FIX));
    const checks = problems
      .filter((p) => !p.includes(MODEL_FIX))
      .map((message): SettingsCheck => ({ check: 'config', severity: 'error', message }));
    if (checks.length === 0 && model.length === 0)
      checks.push({ check: 'config', severity: 'error', message: (error as Error).message });
    return [
      ...checks,
      ...model.map((message): SettingsCheck => ({ check: 'model', severity: 'error', message })),
    ];
  }
  const checks: SettingsCheck[] = [{ check: 'config', severity: 'ok', message: 'ok' }];
  const [{ settingModelApplies, modelLabel }, { resolveModelConfig }] = await Promise.all([
    import('./runtime.js'),
    import('./agent-models.js'),
  ]);
  const spec = config.settings.model;
  if (spec === undefined || !settingModelApplies(config)) {
    const why =
      spec === undefined ? 'no model setting' : `the model setting "${spec}" gives way to this run's`;
    checks.push({ check: 'model', severity: 'ok', message: `${modelLabel(config.provider)} (${why})` });
    return checks;
  }
  try {
    const resolved = await resolveModelConfig(io, config, spec);
    checks.push({
      check: 'model',
      severity: 'ok',
      message: `${spec} → ${resolved.config.vendor}:${resolved.config.model}`,
    });
  } catch (error) {
    // A tier no provider section defines: the sentence `birdie config set model` says, naming the file to write.
    const { modelSettingWarnings } = await import('./model-setting-warnings.js');
    const file = config.sources.model.replace(/^file /, '');
    const [warning] = await modelSettingWarnings(io, flags, spec, file);
    checks.push({
      check: 'model',
      severity: 'error',
      message: `${warning ?? (error as Error).message}; or \`birdie config unset model\``,
    });
  }
  return checks;
}

/** The project's settings file (`.birdie/settings.json`), read as a run reads it: only when there is one. */
async function projectSettingsChecks(io: RuntimeIo, flags: Flags): Promise<SettingsCheck[]> {
  const [{ projectRules, PROJECT_SETTINGS }, { workingDir }, { existsSync }] = await Promise.all([
    import('./permission-rules.js'),
    import('./skills.js'),
    import('node:fs'),
  ]);
  let cwd: string;
  try {
    cwd = workingDir(io, flags);
  } catch (error) {
    return [{ check: 'project settings', severity: 'error', message: (error as Error).message }];
  }
  const path = join(cwd, PROJECT_SETTINGS);
  try {
    // Trusted or not only decides whether its allow rules apply; what can be read is the same.
    const rules = await projectRules(cwd, false);
    if (rules.problem)
      return [
        {
          check: 'project settings',
          severity: 'warning',
          message: `some of the project's approval rules are not used (the others apply): ${rules.problem}`,
        },
      ];
  } catch (error) {
    return [{ check: 'project settings', severity: 'error', message: (error as Error).message }];
  }
  return existsSync(path) ? [{ check: 'project settings', severity: 'ok', message: `${path}: ok` }] : [];
}
