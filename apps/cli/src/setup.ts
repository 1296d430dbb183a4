import { existsSync } from 'node:fs';
import { writePrivateFile } from './folders.js';
import { CliError, type Io } from './io.js';
import { configFile } from './paths.js';

/**
 * First run in a terminal with no provider anywhere: ask vendor, model and key, write the `provider` section of
 * `~/.birdie/config.json` with mode 0600 in a 0700 folder (it may hold a key; it is the only file birdie ever
 * writes one to), keeping a `settings` section the file already has. The file is replaced, never written through:
 * see `writePrivateFile`.
 */
export async function firstRunSetup(io: Io): Promise<string> {
  const prompts = await import('@clack/prompts');
  const { VENDORS, VENDOR_NAMES, readConfigFile } = await import('@birdie/providers');
  const opts = { input: io.stdin, output: io.stdout };
  prompts.intro('birdie setup: no model provider is configured yet', { output: io.stdout });
  const vendor = await prompts.select({
    ...opts,
    message: 'Which provider?',
    // The scripted model is for tests; acp and langchain name a program or a module, written into the file by hand.
    options: VENDOR_NAMES.filter((v) => v !== 'scripted' && !VENDORS[v].advanced).map((v) => ({
      value: v,
      label: v,
      hint: VENDORS[v].notes,
    })),
  });
  if (prompts.isCancel(vendor)) throw new CliError('setup cancelled; nothing was written', 2);
  const info = VENDORS[vendor];
  const model = await prompts.text({
    ...opts,
    message: 'Model',
    placeholder: info.defaultModel ?? 'deployment name',
    defaultValue: info.defaultModel ?? '',
    validate: (v) => (!v && !info.defaultModel ? 'a model (deployment) name is required' : undefined),
  });
  if (prompts.isCancel(model)) throw new CliError('setup cancelled; nothing was written', 2);
  const config: Record<string, string> = { vendor, model: model || info.defaultModel || '' };
  if (info.apiKeyEnv.length > 0) {
    const key = await prompts.password({
      ...opts,
      message: `API key (leave empty to use ${info.apiKeyEnv.join(' or ')} from the environment)`,
    });
    if (prompts.isCancel(key)) throw new CliError('setup cancelled; nothing was written', 2);
    if (key) config.api_key = key;
  }
  if (vendor === 'azure' || vendor === 'ollama') {
    const url = await prompts.text({
      ...opts,
      message: vendor === 'azure' ? 'Endpoint (https://<resource>.openai.azure.com)' : 'Server URL',
      placeholder: info.defaultBaseUrl ?? '',
      defaultValue: info.defaultBaseUrl ?? '',
    });
    if (prompts.isCancel(url)) throw new CliError('setup cancelled; nothing was written', 2);
    if (url) config.base_url = url;
  }
  const file = configFile(io.env);
  // Setup runs only when the file has no provider section, so a settings section is all there is to keep.
  const settings = existsSync(file) ? (await readConfigFile(file)).settings : undefined;
  await writePrivateFile(file, configText(config, settings));
  prompts.outro(`Saved ${file} (mode 0600). Environment variables and --config still work.`, {
    output: io.stdout,
  });
  return file;
}

/** The config file's text in its sectioned shape: `{ "provider": {…}, "settings": {…} }`. */
export function configText(provider: Record<string, unknown>, settings?: Record<string, unknown>): string {
  return `${JSON.stringify(settings === undefined ? { provider } : { provider, settings }, null, 2)}\n`;
}
