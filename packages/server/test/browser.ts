import type { Store } from '@birdie/store';
import { openStore } from '@birdie/store';
import { type Browser, launchChromium, makeTempDir, type Page } from '@birdie/test-utils';
import { afterAll, beforeAll } from 'vitest';
import { type BirdieServer, createServer, type ServerOptions } from '../src/index.js';
import { FakeRuntime } from './helpers.js';

/**
 * Browser tests of the web app against a real listening server (this package's, over a real SQLite store, with the
 * scripted turns of `FakeRuntime`) and Debian's headless Chromium (`launchChromium` from @birdie/test-utils:
 * playwright-core with `executablePath`, no downloaded browser). For tests against a real `birdie serve` with the
 * scripted model (the end-to-end ones), see apps/cli/test/helpers/web.ts, which uses the same launcher.
 *
 * ```ts
 * const web = useBrowserServer({ webRoot: join(import.meta.dirname, 'fixtures', 'csp-page') });
 * it('…', async () => {
 *   const page = await web.page();           // a fresh browser context, its sessionStorage holding web.token
 *   await page.goto(web.url);
 *   web.runtime.script = async ({ handlers }) => { … };   // what the next turn streams
 * });
 * ```
 * Omit `webRoot` to serve the app built into this package (dist/web).
 */
export interface BrowserServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** A token of user `alice` (`token('bob')` for another user). */
  token: string;
  tokenOf(user: string): Promise<string>;
  store: Store;
  runtime: FakeRuntime;
  server: BirdieServer;
  browser: Browser;
  /**
   * A page in a fresh browser context; with `signedInAs` (default the `token`), its `sessionStorage` already holds
   * the token under `tokenKey` (default `birdie.token`), as the app keeps it after signing in.
   */
  page(options?: { signedInAs?: string | false; tokenKey?: string }): Promise<Page>;
}

/**
 * What functions given to `page.evaluate` / `addInitScript` use of the page (they run there; this package is typed
 * without the DOM library, which would change the Node types of the rest): `globalThis as unknown as PageGlobals`.
 */
export interface PageGlobals {
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  document: { getElementById(id: string): { textContent: string | null } | null };
  [name: string]: unknown;
}

export function useBrowserServer(options: Partial<ServerOptions> = {}): BrowserServer {
  const web = {} as BrowserServer;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    const dir = await makeTempDir('birdie-browser-');
    closers.push(() => dir.cleanup());
    web.store = openStore({ home: dir.path });
    closers.unshift(() => web.store.close());
    web.runtime = new FakeRuntime(web.store);
    web.server = createServer({ runtime: web.runtime, rateLimit: false, ...options });
    closers.unshift(() => web.server.close({ graceMs: 0 }));
    web.url = (await web.server.listen({ host: '127.0.0.1', port: 0 })).url;
    web.tokenOf = async (user) => (await web.store.tokens.create(user)).token;
    web.token = await web.tokenOf('alice');
    web.browser = await launchChromium();
    closers.unshift(() => web.browser.close());
    web.page = async ({ signedInAs = web.token, tokenKey = 'birdie.token' } = {}) => {
      const context = await web.browser.newContext();
      if (signedInAs)
        await context.addInitScript(
          ([key, token]) => {
            const { sessionStorage } = globalThis as unknown as PageGlobals;
            if (!sessionStorage.getItem(key)) sessionStorage.setItem(key, token);
          },
          [tokenKey, signedInAs] as const,
        );
      return context.newPage();
    };
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return web;
}

/** What `recordAlerts` uses of the page's globals (the tests compile without the DOM's types). */
interface AlertGlobals {
  alertTexts: string[];
  document: { body: unknown; querySelector(selector: string): { textContent: string | null } | null };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: Record<string, boolean>): void };
}

/**
 * Records every text the chat's alert shows, as it is drawn (a `MutationObserver` in the page): an error drawn and
 * replaced a moment later is seen by a user, and by a test that reads the alert on a busy machine. Returns a reader.
 */
export async function recordAlerts(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const g = globalThis as unknown as AlertGlobals;
    const seen: string[] = [];
    g.alertTexts = seen;
    new g.MutationObserver(() => {
      const text = g.document.querySelector('main.chat [role=alert]')?.textContent ?? '';
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    }).observe(g.document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (globalThis as unknown as AlertGlobals).alertTexts);
}
