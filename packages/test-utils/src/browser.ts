import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser, LaunchOptions } from 'playwright-core';

export type { Browser, BrowserContext, Page } from 'playwright-core';

/** No Chromium to drive: the message says how to install Debian's (scripts/system-packages.sh does it). */
export class BrowserUnavailableError extends Error {
  override readonly name = 'BrowserUnavailableError';
  readonly code = 'browser-unavailable';
}

export function isBrowserUnavailableError(error: unknown): error is BrowserUnavailableError {
  return error instanceof BrowserUnavailableError;
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The Chromium the browser tests drive: `BIRDIE_CHROMIUM` when set, else the system's (`chromium` on the PATH —
 * Debian's package, `/usr/bin/chromium` — or `chromium-browser`). Never a browser downloaded at install time.
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BIRDIE_CHROMIUM) {
    if (executable(env.BIRDIE_CHROMIUM)) return env.BIRDIE_CHROMIUM;
    throw new BrowserUnavailableError(`BIRDIE_CHROMIUM=${env.BIRDIE_CHROMIUM} is not an executable file`);
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of ['chromium', 'chromium-browser'])
    for (const dir of [...dirs, '/usr/bin']) if (executable(join(dir, name))) return join(dir, name);
  throw new BrowserUnavailableError(
    'no chromium found: install it (Debian: apt-get install chromium; scripts/system-packages.sh does it) or set BIRDIE_CHROMIUM to its path',
  );
}

/**
 * Headless Chromium through playwright-core, for the web app's browser tests. Close it when done (`afterAll`).
 *
 * ```ts
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 * const response = await page.goto(`${url}/`);
 * ```
 * As root (a CI container) Chromium's own sandbox cannot start, so it runs without it; `/dev/shm` is not used (small in
 * containers).
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    ...options,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--disable-dev-shm-usage', ...(options.args ?? [])],
  });
}
