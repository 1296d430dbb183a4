// `pnpm bench` (after `pnpm build`): the web app's first screen — the JavaScript it loads, gzipped (budget 150 KB), and
// the time from navigation until the sign-in form takes input, in headless Chromium against this package's server
// (median of BENCH_WEB_RUNS loads, each in a fresh browser context: nothing cached). A report, not a test.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createServer } from '@birdie/server';
import { openStore } from '@birdie/store';
import { launchChromium } from '@birdie/test-utils';

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 7);
const BUDGET_KB = 150;
const web = fileURLToPath(new URL('../dist/web/', import.meta.url));

// The first screen's scripts: what index.html loads (its module script and what it preloads).
const html = readFileSync(join(web, 'index.html'), 'utf8');
const scripts = [
  ...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g),
].map((m) => m[1]);
const gz = (file) => gzipSync(readFileSync(join(web, file)), { level: 9 }).length;
const gzipped = scripts.reduce((n, file) => n + gz(file), 0);
// Every script of the app (the signed-in screens load the rest on demand).
const all = readdirSync(join(web, 'assets'))
  .filter((f) => f.endsWith('.js'))
  .reduce((n, f) => n + gz(join('assets', f)), 0);

const home = mkdtempSync(join(tmpdir(), 'birdie-web-bench-'));
const store = openStore({ home });
const runtime = {
  store,
  provider: 'none/0',
  createSession: (userId) => store.sessions.create(userId, { perUser: true }),
  skills: async () => [],
  history: async () => ({ messages: [], grants: { enabled: [], disabled: [] } }),
  pendingApprovals: async () => [],
  deleteSession: (s) => store.sessions.delete(s.id, s.userId),
  runTurn: async () => ({ status: 'ok', inputTokens: 0, outputTokens: 0 }),
};
const server = createServer({ runtime, version: 'bench' });
const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
const browser = await launchChromium();
const times = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    // From the navigation's start to the first animation frame where the form takes input, on the page's own clock
    // (checked in the page every frame, so the driver's round trips are not counted).
    const usable = await page.waitForFunction(
      () => {
        const input = document.querySelector('#token');
        return input && !input.disabled ? performance.now() : 0;
      },
      null,
      { polling: 'raf', timeout: 60_000 },
    );
    times.push(await usable.jsonValue());
    await context.close();
  }
} finally {
  await browser.close();
  await server.close({ graceMs: 0 });
  store.close?.();
  rmSync(home, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log('web app (first screen)           value       budget');
console.log(
  `JavaScript, gzipped               ${(gzipped / 1024).toFixed(1).padStart(6)} KB   ≤ ${BUDGET_KB} KB ${gzipped / 1024 <= BUDGET_KB ? 'ok' : 'OVER'}`,
);
console.log(
  `JavaScript of every screen, gzipped ${(all / 1024).toFixed(1).padStart(6)} KB   ≤ ${BUDGET_KB} KB ${all / 1024 <= BUDGET_KB ? 'ok' : 'OVER'}`,
);
console.log(
  `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores\nfirst screen usable (median of ${RUNS}) ${median.toFixed(0).padStart(5)} ms   report only`,
);
