/**
 * The locale variables glibc reads (POSIX's categories plus glibc's own). A prefix match on `LC_` would also pass
 * `LC_SECRET_TOKEN`, so they are named one by one.
 */
export const LOCALE_VARIABLES = [
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_COLLATE',
  'LC_MONETARY',
  'LC_MESSAGES',
  'LC_PAPER',
  'LC_NAME',
  'LC_ADDRESS',
  'LC_TELEPHONE',
  'LC_MEASUREMENT',
  'LC_IDENTIFICATION',
] as const;

/** Every host variable a child process may inherit; nothing else is copied implicitly. */
export const ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'TERM',
  'TMPDIR',
  ...LOCALE_VARIABLES,
];

const ALLOWED = new Set(ENV_ALLOWLIST);

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The environment a child sees: an allowlist from the host plus what the caller passes explicitly. Host API
 * keys, tokens and secrets are never copied implicitly; a caller that passes one does so on purpose.
 */
export function childEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && ALLOWED.has(key)) env[key] = value;
  }
  env.PATH ??= FALLBACK_PATH;
  if (extra) for (const [key, value] of Object.entries(extra)) env[key] = String(value);
  return env;
}
