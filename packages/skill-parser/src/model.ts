/**
 * The vendors an agent's `model: vendor:model` may name: those `@birdie/providers` builds models for. This package is a
 * leaf and cannot import that list; a test of the CLI (which has both) holds the two equal.
 */
export const MODEL_VENDORS: readonly string[] = Object.freeze([
  'openai',
  'azure',
  'anthropic',
  'mistral',
  'gemini',
  'ollama',
  'scripted',
]);

/**
 * The tiers a provider section may define (`models`), which an agent's `model:` may name: `@birdie/providers`'
 * `MODEL_TIERS`, held equal by a test of the CLI (this package is a leaf). Any other bare word is refused where it is
 * written: a run would stop at "No model tier".
 */
export const MODEL_TIERS: readonly string[] = Object.freeze(['fast', 'default', 'strong']);

/** A lower-case identifier: the shape of a tier name (kept for callers that test the shape alone). */
export const MODEL_TIER = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * A model name after `vendor:`. Providers' names use letters, digits and `. _ - : / @ +` (`llama3.2:3b`,
 * `meta-llama/Llama-3.1-8B`, `claude-sonnet-4-5@20250929`). Blanks, quotes, `?`, `#`, `%` and the like are refused, and
 * so are `..` and `//` (some vendors put the name into the request path: it may never climb out of it).
 */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$/;

/** Why `value` is not a model an agent may pick, or `undefined` when it is one. */
export function modelProblem(value: string): string | undefined {
  const colon = value.indexOf(':');
  if (colon < 0) {
    if (MODEL_TIERS.includes(value)) return undefined;
    const neither = `\`${value}\` is neither \`vendor:model\` nor a tier (${MODEL_TIERS.join(', ')})`;
    // A model's own name (`gpt-4o`, `claude-sonnet-4-5`) is the likely slip: the vendor it belongs to, when plain.
    const vendor = likelyVendor(value);
    return vendor ? `${neither}; to name a model, write its vendor: \`${vendor}:${value}\`` : neither;
  }
  const vendor = value.slice(0, colon);
  const name = value.slice(colon + 1);
  if (name.startsWith('//') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    return 'a URL is not a model: where requests go is set in your config, never in an agent file';
  }
  if (!MODEL_VENDORS.includes(vendor)) {
    return `unknown vendor \`${vendor}\` (one of ${MODEL_VENDORS.join(', ')})`;
  }
  if (!MODEL_NAME.test(name) || name.includes('..') || name.includes('//')) {
    return `\`${name}\` is not a model name (letters, digits and \`. _ - : / @ +\`; no \`..\` or \`//\`)`;
  }
  return undefined;
}

/** The vendor a bare model name most likely belongs to, by the prefixes vendors name their models with. */
function likelyVendor(name: string): string | undefined {
  if (/^(gpt-|o\d|chatgpt-)/.test(name)) return 'openai';
  if (name.startsWith('claude-')) return 'anthropic';
  if (name.startsWith('gemini-')) return 'gemini';
  if (/^(mistral-|codestral|ministral|pixtral)/.test(name)) return 'mistral';
  return undefined;
}
