const ALLOWED = new Set(['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'TMPDIR']);

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The environment a child sees: an allowlist from the host plus what the caller passes explicitly. Host API
 * keys, tokens and secrets are never copied implicitly; a caller that passes one does so on purpose.
 */
export function childEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && (ALLOWED.has(key) || key.startsWith('LC_'))) env[key] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  if (extra) for (const [key, value] of Object.entries(extra)) env[key] = String(value);
  return env;
}
