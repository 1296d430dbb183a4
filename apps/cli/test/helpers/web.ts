import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, launchChromium, type Page } from '@birdie/test-utils';
import { type Sandbox, sandbox } from './env.js';
import { makeToken, startWorker, type Worker } from './serve.js';

/**
 * The web app's end-to-end harness: a real `birdie serve` (this package's dist/bin.js, over its own SQLite file) with
 * the scripted model, tokens of its users, and Debian's headless Chromium (`launchChromium` from @birdie/test-utils:
 * playwright-core with `executablePath`). The server serves the app the CLI's build copied from @birdie/server
 * (dist/web); without one, `/` is a 404 that says so.
 *
 * ```ts
 * let web: WebServe;
 * beforeAll(async () => {
 *   web = await startWebServe({ replies: [{ match: 'hello', text: '**Hi**' }], args: ['--approval', 'always'] });
 * }, 120_000);
 * afterAll(() => web?.close());
 * it('signs in', async () => {
 *   const page = await web.page({ signedInAs: false });  // or signed in: the token already in sessionStorage
 *   await page.goto(web.url);
 * });
 * ```
 * `replies` is the scripted model's script (`{ match, text }` / `{ match, tool_calls }`, each used once, in order;
 * see @birdie/providers' scripted vendor); `args` go to `birdie serve` (`--skills-dir`, `--approval`, …).
 */
export interface WebServe {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** A token of user `alice`. */
  token: string;
  /** A token of another user (made with `birdie tokens create` on the same database). */
  tokenOf(user: string): Promise<string>;
  worker: Worker;
  box: Sandbox;
  browser: Browser;
  /**
   * A page in a fresh browser context (its own storage); with `signedInAs` (default `token`) the token is in its
   * `sessionStorage` under `tokenKey` (default `birdie.token`) before the app's first script runs.
   */
  page(options?: { signedInAs?: string | false; tokenKey?: string }): Promise<Page>;
  /** Closes the browser, stops the server, removes the folders. */
  close(): Promise<void>;
}

export async function startWebServe(options: {
  replies: unknown[];
  args?: string[];
  env?: NodeJS.ProcessEnv;
}): Promise<WebServe> {
  const box = await sandbox(options.env);
  const closers: Array<() => Promise<unknown>> = [() => box.cleanup()];
  const close = async () => {
    for (const step of closers.splice(0).reverse()) await step().catch(() => {});
  };
  try {
    const script = join(box.dir.path, 'script.json');
    await writeFile(script, JSON.stringify({ replies: options.replies }));
    const env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
    const worker = await startWorker(options.args ?? [], { env, cwd: box.cwd, home: box.home });
    closers.push(async () => {
      worker.process.kill('SIGTERM');
    });
    const tokenOf = (user: string) => makeToken(user, { env, cwd: box.cwd });
    const token = await tokenOf('alice');
    const browser = await launchChromium();
    closers.push(() => browser.close());
    return {
      url: worker.url,
      token,
      tokenOf,
      worker,
      box,
      browser,
      async page({ signedInAs = token, tokenKey = 'birdie.token' } = {}) {
        const context = await browser.newContext();
        if (signedInAs)
          await context.addInitScript(
            ([key, value]) => {
              const { sessionStorage } = globalThis as unknown as { sessionStorage: Storage };
              if (!sessionStorage.getItem(key)) sessionStorage.setItem(key, value);
            },
            [tokenKey, signedInAs] as const,
          );
        return context.newPage();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The part of the DOM's `Storage` used in the page (the tests are typed without the DOM library). */
interface Storage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}
