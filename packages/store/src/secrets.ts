// Key names that carry credentials: api_key, apiKey, openai_api_key, *_key, *token*, *secret*, password, auth headers.
const SECRET_KEY =
  /(^|[_-])key$|api_?key|token|secret|passw(or)?d|credential|authorization|cookie|[a-z]Key$/i;
// Well-known credential shapes, caught even under an innocent key name.
const SECRET_VALUE =
  /\b(sk-(ant-|proj-)?[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abpr]-[A-Za-z0-9-]{10,}|Bearer\s+[A-Za-z0-9._~+/=-]{16,})/g;

const REDACTED = '[redacted]';

/** Whether a property name looks like it holds a credential. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Replaces credential-shaped substrings (sk-…, AIza…, ghp_…, Bearer …) in free text. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_VALUE, REDACTED);
}

/**
 * A copy of `value` without properties whose names look secret and with credential-shaped
 * strings redacted. Used on checkpoint metadata, which LangGraph fills from run config.
 */
export function scrubSecrets<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => scrubSecrets(v, depth + 1)) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (isSecretKey(k)) continue;
    out[k] = scrubSecrets(v, depth + 1);
  }
  return out as T;
}
