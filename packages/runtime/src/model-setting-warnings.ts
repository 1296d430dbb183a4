import { loadConfig } from './config.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';

/**
 * What a start would meet with the `model` setting just written: a tier no provider section defines stops every run
 * (`No model tier …`). Said when it is written, not refused: the provider section may be written next (or come from
 * `LLM_PROVIDER_CONFIG` at run time). `file`: the config file written. A config that does not load says so itself at
 * the next start; no warning then.
 */
export async function modelSettingWarnings(
  io: RuntimeIo,
  flags: Flags,
  spec: string,
  file: string,
): Promise<string[]> {
  // `default` falls back to the provider's own model; `vendor:model` needs no tier.
  if (spec !== 'fast' && spec !== 'strong') return [];
  const tiers = await loadConfig(io, flags).then(
    (config) => config.provider.tiers as readonly string[],
    () => undefined,
  );
  if (tiers === undefined || tiers.includes(spec)) return [];
  const defined = tiers.length ? ` (defined: ${tiers.join(', ')})` : '';
  return [
    `no provider section defines the model tier "${spec}"${defined}: runs fail until one does, e.g. "models": { "${spec}": { "model": "…" } } in the provider section of ${file}`,
  ];
}
