import type { Vendor } from './vendors.js';
import { VENDORS } from './vendors.js';

export interface CredentialCheckInput {
  vendor: Vendor;
  apiKey?: string;
  /** The server to ask; default: the vendor's public endpoint. */
  baseUrl?: string;
  /** How long to wait for the answer, ms (default 5 000): a setup step must not hang on a dead network. */
  timeoutMs?: number;
}

/**
 * `valid`: the server accepted the key (or, without keys, answered). `rejected`: it refused the key (401/403), so
 * a config holding it is unusable. `unchecked`: nothing could be learnt (no network, a vendor with no cheap
 * check): the key may well work.
 */
export type CredentialCheck =
  | { status: 'valid' }
  | { status: 'rejected'; reason: string }
  | { status: 'unchecked'; reason: string };

interface Probe {
  url: string;
  headers: Record<string, string>;
}

/** The cheapest authenticated call each vendor has: listing its models. */
function probeFor(vendor: Vendor, apiKey: string, baseUrl: string | undefined): Probe | undefined {
  const base = (baseUrl ?? VENDORS[vendor].defaultBaseUrl ?? '').replace(/\/+$/, '');
  switch (vendor) {
    case 'openai':
      return { url: `${base}/models`, headers: { authorization: `Bearer ${apiKey}` } };
    case 'mistral':
      return {
        url: `${baseUrl?.replace(/\/+$/, '') ?? 'https://api.mistral.ai/v1'}/models`,
        headers: { authorization: `Bearer ${apiKey}` },
      };
    case 'anthropic':
      return {
        url: `${base}/v1/models`,
        headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      };
    case 'gemini':
      return {
        url: `${baseUrl?.replace(/\/+$/, '') ?? 'https://generativelanguage.googleapis.com/v1beta'}/models`,
        headers: { 'x-goog-api-key': apiKey },
      };
    case 'ollama':
      return { url: `${base}/api/tags`, headers: {} };
    default:
      return undefined;
  }
}

/**
 * Asks the vendor whether a key works, with one models-list request and a short timeout. Never throws, never
 * retries, and the key is sent only to the vendor's own endpoint (or the `baseUrl` given).
 */
export async function checkCredentials(input: CredentialCheckInput): Promise<CredentialCheck> {
  const probe = probeFor(input.vendor, input.apiKey ?? '', input.baseUrl);
  if (!probe) return { status: 'unchecked', reason: `${input.vendor} has no cheap check` };
  const timeoutMs = input.timeoutMs ?? 5_000;
  let response: Response;
  try {
    response = await fetch(probe.url, { headers: probe.headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const name = (error as { name?: string }).name;
    const why =
      name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : ((error as Error).cause as Error)?.message;
    return { status: 'unchecked', reason: `${probe.url} could not be reached (${why ?? 'fetch failed'})` };
  }
  // Only the status matters; drop the body so the connection closes.
  await response.body?.cancel().catch(() => {});
  if (response.status === 401 || response.status === 403)
    return { status: 'rejected', reason: `${input.vendor} refused the key (HTTP ${response.status})` };
  if (response.ok) return { status: 'valid' };
  return { status: 'unchecked', reason: `${probe.url} answered HTTP ${response.status}` };
}
