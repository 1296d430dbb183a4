/**
 * Authored keys (`__proto__`, `constructor`, `toString`, …) are data. Objects built from them keep every key as an own
 * property, the way `yaml` and `JSON.parse` do: plain assignment of `__proto__` would replace the prototype instead.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key in target) {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else target[key] = value;
}

/** The value of an own property, never one inherited from `Object.prototype`. */
export function getOwn(target: object | null | undefined, key: string): unknown {
  return target != null && Object.hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined;
}

/** A plain, non-array object (a YAML mapping). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Authored data as text for a message or a string field: `String()` would call an authored `toString` key (and throw
 * when it is not a function).
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return Array.isArray(value) ? 'a list' : 'a mapping';
  }
}
