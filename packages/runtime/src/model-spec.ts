/** `vendor:model`, the one way birdie names a model outside the tiers. */
export const VENDOR_MODEL = /^([a-z][a-z0-9-]*):(\S.*)$/;
/** The model tiers a provider section may define (`models`), by name. */
export const TIER_NAMES = ['fast', 'default', 'strong'] as const;

/** Whether `spec` is a name the router understands: a tier, or `vendor:model`. */
export function isModelSpec(spec: string): boolean {
  return (TIER_NAMES as readonly string[]).includes(spec) || VENDOR_MODEL.test(spec);
}

/**
 * The vendors `@birdie/providers` builds models for (its `VENDOR_NAMES`, held equal by a test): a copy, so that
 * reading the settings (`birdie tokens list`, `birdie config`) loads nothing of the providers.
 */
export const VENDOR_NAMES: readonly string[] = Object.freeze([
  'openai',
  'azure',
  'anthropic',
  'mistral',
  'gemini',
  'ollama',
  'scripted',
  'acp',
  'langchain',
]);

/** The vendor of a `vendor:model` name when birdie has no such vendor; undefined for a tier or a known vendor. */
export function unknownVendorOf(spec: string): string | undefined {
  const vendor = VENDOR_MODEL.exec(spec)?.[1];
  return vendor === undefined || VENDOR_NAMES.includes(vendor) ? undefined : vendor;
}
