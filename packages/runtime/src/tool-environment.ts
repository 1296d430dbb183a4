import type { Settings } from './settings.js';

/** The variable the bundled `web_fetch` reads its allowed non-public networks from (see its skill). */
export const WEB_FETCH_ALLOW = 'BIRDIE_WEB_FETCH_ALLOW';

/**
 * What the settings add to every tool's environment: the `web_fetch_allow` networks, as `BIRDIE_WEB_FETCH_ALLOW`.
 * The variable in birdie's own environment wins (a tool reads it there when the call's environment lacks it).
 */
export function settingsToolEnv(
  settings: Pick<Settings, 'web_fetch_allow'>,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  if (env[WEB_FETCH_ALLOW] !== undefined || settings.web_fetch_allow.length === 0) return {};
  return { [WEB_FETCH_ALLOW]: settings.web_fetch_allow.join(',') };
}
