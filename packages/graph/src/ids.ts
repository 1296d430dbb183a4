import { randomUUID } from 'node:crypto';

export function newId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** JSON with object keys sorted, so equal arguments give equal strings whatever the key order. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * Thread ids become checkpoint keys and session file names: a strict pattern. `~` and `@` for the store's session ids
 * numbered per user (`a.b@example.org~2026-11-29_1`); none of them is special in a path or a URL path.
 */
export const THREAD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~@-]{0,127}$/;
