// The web skill's tool, called by birdie's `node:` entrypoint as `(args, context)`. The allowed non-public networks
// come from the call's environment (`context.env`), else birdie's own.
import { ALLOW_VARIABLE } from './lib/address-policy.mjs';
import { fetchPage } from './lib/fetch-page.mjs';

/**
 * @param {{ url: string; max_chars?: number }} args
 * @param {{ signal?: AbortSignal; env?: Record<string, string> }} [context]
 */
export async function web_fetch(args, context) {
  const allow = context?.env?.[ALLOW_VARIABLE] ?? process.env[ALLOW_VARIABLE];
  return fetchPage(args, {
    ...(allow !== undefined ? { allow } : {}),
    ...(context?.signal ? { signal: context.signal } : {}),
  });
}
