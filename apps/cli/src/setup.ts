import type { Vendor } from '@birdie/providers';
import { providerFileWriter } from '@birdie/runtime/provider-file';
import { baseUrlProblem, baseUrlQuestion, keyQuestion } from '@birdie/runtime/provider-setup';
import { CliError, type Io } from './io.js';

/**
 * The setup wizard: ask vendor, model and key, check the key with the vendor where it has a cheap check, and write
 * the `provider` section of `~/.birdie/config.json` with mode 0600 in a 0700 folder (it may hold a key; it is the
 * only file birdie ever writes one to), keeping a `settings` section the file already has. The file is replaced,
 * never written through: see `writePrivateFile`. Runs on a first start in a terminal with no provider anywhere, and
 * as `birdie setup` to choose again. A config the vendor refuses (or a keyless one with no key in the environment)
 * is never saved: every later start would fail on it.
 */
export async function firstRunSetup(io: Io, options: { again?: boolean } = {}): Promise<string> {
  const prompts = await import('@clack/prompts');
  const { VENDORS, VENDOR_NAMES } = await import('@birdie/providers');
  const opts = { input: io.stdin, output: io.stdout };
  // Read first: a file that cannot be kept fails before any question.
  const { file, save } = await providerFileWriter(io.env);
  prompts.intro(
    options.again
      ? 'birdie setup: choose the model provider'
      : 'birdie setup: no model provider is configured yet',
    { output: io.stdout },
  );
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
  const urlQuestion = baseUrlQuestion(vendor, info);
  if (urlQuestion) {
    const url = await prompts.text({ ...opts, ...urlQuestion, validate: baseUrlProblem });
    if (prompts.isCancel(url)) throw new CliError('setup cancelled; nothing was written', 2);
    if (url?.trim()) config.base_url = url.trim();
  }
  // Where requests will go: the URL just given, else LLM_BASE_URL, else the vendor's own endpoint.
  const baseUrl = config.base_url ?? (io.env.LLM_BASE_URL || undefined);
  const { fromEnv, ...question } = keyQuestion(vendor, info, io.env, config.base_url);
  for (;;) {
    let key: string | undefined;
    if (info.apiKeyEnv.length > 0) {
      const entered = await prompts.password({ ...opts, ...question });
      if (prompts.isCancel(entered)) throw new CliError('setup cancelled; nothing was written', 2);
      key = entered || undefined;
    }
    const check = await checkWithSpinner(
      prompts,
      io,
      vendor,
      key ?? (fromEnv ? io.env[fromEnv] : undefined),
      baseUrl,
    );
    if (check.status === 'rejected') {
      prompts.log.error(`${check.reason}; nothing was saved. Enter another key (Ctrl+C stops).`, {
        output: io.stdout,
      });
      if (info.apiKeyEnv.length === 0)
        throw new CliError(`setup stopped: ${check.reason}; nothing was written`, 2);
      continue;
    }
    if (check.status === 'unchecked')
      prompts.log.warn(`Could not check the key: ${check.reason}. Saving it anyway.`, { output: io.stdout });
    if (key) config.api_key = key;
    break;
  }
  // The provider section is replaced; a settings section is kept as it is.
  await save(config);
  prompts.outro(`Saved ${file} (mode 0600). Environment variables and --config still work.`, {
    output: io.stdout,
  });
  return file;
}

async function checkWithSpinner(
  prompts: typeof import('@clack/prompts'),
  io: Io,
  vendor: Vendor,
  apiKey: string | undefined,
  baseUrl: string | undefined,
) {
  const { checkCredentials } = await import('@birdie/providers');
  const spinner = prompts.spinner({ output: io.stdout });
  spinner.start(vendor === 'ollama' ? 'Checking the server…' : 'Checking the key…');
  const check = await checkCredentials({
    vendor,
    ...(apiKey ? { apiKey } : {}),
    ...(baseUrl ? { baseUrl } : {}),
  });
  spinner.stop(
    check.status === 'valid' ? (vendor === 'ollama' ? 'Server answered' : 'Key accepted') : 'Checked',
  );
  return check;
}
