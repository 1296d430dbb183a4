import type { ApprovalMode } from '@birdie/graph';

/** Every approval mode, for `--approval`, `/approval` and the `approval` setting. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'always', 'never'];

/** The `settings` section of `~/.birdie/config.json` (and of a `--config` file), defaults filled in. */
export interface Settings {
  /** The approval mode when `--approval` is not given. */
  approval: ApprovalMode;
  /** Skills enabled or disabled in a new session, as if given with `--enable` / `--disable`. */
  skills: { enable: string[]; disable: string[] };
  /** A PostgreSQL server to keep everything in instead of the SQLite file (`BIRDIE_DATABASE_URL` overrides it). */
  databaseUrl?: string;
}

/** A setting's dotted name, as used in `sources` and in messages. */
export type SettingKey = 'approval' | 'skills.enable' | 'skills.disable' | 'database_url';
export const SETTING_KEYS: readonly SettingKey[] = [
  'approval',
  'skills.enable',
  'skills.disable',
  'database_url',
];

export function defaultSettings(): Settings {
  return { approval: 'ask', skills: { enable: [], disable: [] } };
}
