import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from '@birdie/test-utils';

// What the web app's end-to-end tests add to the harness (`launchChromium` from @birdie/test-utils, `startWorker`):
// tabs that record what went wrong in the page, and axe-core. Everything waits on conditions with generous
// timeouts: the machine is a loaded 2-core box.

/** How long any one condition may take to hold. */
export const WAIT_MS = 60_000;

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
    const axe = (
      globalThis as unknown as { axe: { run(o: unknown): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
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
