import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

// The web app's end-to-end tests drive Debian's chromium (the `chromium` package: scripts/system-packages.sh) with
// playwright-core, against a real `birdie serve`. Everything waits on conditions with generous timeouts: the
// machine is a loaded 2-core box.

export const CHROMIUM = process.env.BIRDIE_CHROMIUM ?? '/usr/bin/chromium';
/** How long any one condition may take to hold. */
export const WAIT_MS = 60_000;

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // No setuid sandbox as root in a container; the pages are the app's own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    timeout: 120_000,
  });
}

/** A new tab on its own storage (a new "browser" for another user): the page, and what it logged. */
export async function newTab(
  browser: Browser | BrowserContext,
  options: { width?: number; height?: number } = {},
): Promise<{ page: Page; context: BrowserContext; problems: string[] }> {
  const context =
    'newContext' in browser
      ? await browser.newContext({
          viewport: { width: options.width ?? 1100, height: options.height ?? 760 },
          colorScheme: 'light',
        })
      : browser;
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, context, problems };
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's serious and critical violations on the page as it is now. axe is evaluated through the DevTools
 * protocol (not a <script> tag), so the app's Content-Security-Policy stays on while it runs.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

import { createServer, request as httpRequest } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIST = fileURLToPath(new URL('../../../../packages/server/dist/web/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The built app at `/` with the server's Content-Security-Policy, `/v1` passed through to `api`. (Until `birdie
 * serve` serves the app itself.)
 */
export async function serveApp(api: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/v1/')) {
      const upstream = httpRequest(
        new URL(url.pathname + url.search, api),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
      return;
    }
    const file = normalize(join(WEB_DIST, url.pathname === '/' ? 'index.html' : url.pathname));
    const inside = file.startsWith(WEB_DIST) ? file : join(WEB_DIST, 'index.html');
    readFile(inside).then(
      (body) => {
        res.writeHead(200, {
          'content-type': TYPES[extname(inside)] ?? 'application/octet-stream',
          'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
        });
        res.end(body);
      },
      () => {
        res.writeHead(404);
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
