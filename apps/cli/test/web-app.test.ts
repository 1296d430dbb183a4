/// <reference lib="dom" />
// Code here runs in the page too (page.evaluate), so the browser's globals are typed.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, launchChromium, type Page } from '@birdie/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { makeToken, startWorker, type Worker } from './helpers/serve.js';
import { axeViolations, newTab } from './helpers/web-app.js';

// Issue 34: the web app, end to end — a real headless chromium, a real `birdie serve`, the scripted model. Every
// step waits on what the page shows (generous timeouts), never on the clock.

const SERVER_README = fileURLToPath(new URL('../../../packages/server/README.md', import.meta.url));
const SCREENS = join(dirname(SERVER_README), 'docs', 'screens');

const MARKDOWN = [
  '## Plan',
  '',
  'Here is **bold** text and a list:',
  '',
  '- first item',
  '- second item',
  '',
  '| tool | calls |',
  '| --- | ---: |',
  '| shout | 2 |',
  '',
  '```js',
  'const answer = 42;',
  '```',
].join('\n');
const UNSAFE = [
  'Look: <img src=x onerror="window.__pwned = 1"> and <script>window.__pwned = 2</script>',
  '',
  '[click me](javascript:window.__pwned=3) and [data link](data:text/html,<script>alert(1)</script>) and',
  '![pic](javascript:window.__pwned=4) and [a safe link](https://example.com/docs).',
  '',
  'UNSAFE-END',
].join('\n');
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');

const SCRIPT = {
  replies: [
    { match: 'markdown please', text: MARKDOWN },
    {
      match: 'run a command',
      tool_calls: [{ name: 'run_command', args: { command: 'echo approved-output' } }],
    },
    { match: 'run a command', text: 'The command ran.' },
    {
      match: 'edit a command',
      tool_calls: [{ name: 'run_command', args: { command: 'echo original-output' } }],
    },
    { match: 'edit a command', text: 'The edited command ran.' },
    { match: 'reject a command', tool_calls: [{ name: 'run_command', args: { command: 'echo never-run' } }] },
    { match: 'reject a command', text: 'Understood: not running it.' },
    { match: 'slow answer', text: words(400, 'slow'), token_delay_ms: 100 },
    { match: 'long answer', text: `${words(250, 'word')} END-OF-ANSWER`, token_delay_ms: 120 },
    { match: 'unsafe', text: UNSAFE },
  ],
};

let box: Sandbox;
let worker: Worker;
let browser: Browser;
let alice: string;
let bob: string;
let page: Page;
let problems: string[];
let sessionHash = '';
const started = Date.now();

beforeAll(async () => {
  box = await sandbox();
  const script = join(box.dir.path, 'web.json');
  await writeFile(script, JSON.stringify(SCRIPT));
  // The operator lets API sessions use the raw-command test skill (named: a pattern never covers one); its calls ask.
  const set = await birdie(['config', 'set', 'serve.skills', '*,raw-shell'], { env: box.env, cwd: box.cwd });
  expect(set.code, set.stderr).toBe(0);
  alice = await makeToken('alice', { env: box.env, cwd: box.cwd });
  bob = await makeToken('bob', { env: box.env, cwd: box.cwd });
  [worker, browser] = await Promise.all([
    startWorker(['--skills-dir', TEST_SKILLS], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      home: box.home,
      // One worker for the whole file (every step builds on the last), which takes minutes on a loaded machine.
      timeoutMs: 1_200_000,
    }),
    launchChromium({ timeout: 120_000 }),
  ]);
  await mkdir(SCREENS, { recursive: true });
  ({ page, problems } = await newTab(browser));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

async function expectAccessible(p: Page): Promise<void> {
  expect(await axeViolations(p)).toEqual([]);
}
const shot = (p: Page, name: string) => p.screenshot({ path: join(SCREENS, `${name}.png`) });

async function signIn(p: Page, token: string): Promise<void> {
  await p.goto(worker.url);
  await p.getByLabel('Token').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, or refused: a refusal fails here with the page's own words.
  await p.locator('a.new, [role=alert]').first().waitFor();
  const alert = p.getByRole('alert');
  if (await alert.count()) throw new Error(`sign-in refused: ${await alert.first().textContent()}`);
  await p.getByRole('link', { name: 'New chat' }).waitFor();
}
async function send(p: Page, prompt: string): Promise<void> {
  await p.getByLabel('Message').fill(prompt);
  await p.getByLabel('Message').press('Enter');
}
const lastAnswer = (p: Page) => p.locator('.msg.assistant').last();
const status = (p: Page) => p.locator('.turn-status');

describe('the web app in a real browser', { timeout: 240_000 }, () => {
  it('signs in with the keyboard; the token is kept in session storage, never in the URL', async () => {
    await page.goto(worker.url);
    await page.getByLabel('Token').waitFor();
    await expectAccessible(page);
    await shot(page, 'sign-in');
    await page.getByLabel('Token').fill('not-a-token');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not valid');
    await page.getByLabel('Token').fill(alice);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'New chat' }).waitFor();
    expect(page.url()).not.toContain(alice);
    expect(await page.evaluate(() => sessionStorage.getItem('birdie.token'))).toBe(alice);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  });

  it('starts a session and streams a Markdown answer: table, list, highlighted code', async () => {
    await page.getByRole('link', { name: 'New chat' }).click();
    await page.getByLabel('Title (optional)').fill('Markdown demo');
    await expectAccessible(page);
    await shot(page, 'new-chat');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'Markdown demo' }).waitFor();
    sessionHash = new URL(page.url()).hash;
    await send(page, 'markdown please');
    const answer = lastAnswer(page);
    await answer.locator('table td', { hasText: 'shout' }).waitFor();
    await answer.locator('pre code .hljs-keyword').waitFor();
    expect(await answer.locator('h2').textContent()).toBe('Plan');
    expect(await answer.locator('strong').textContent()).toBe('bold');
    expect(await answer.locator('li').count()).toBe(2);
    await expect(status(page).textContent()).resolves.toContain('ok');
    await expectAccessible(page);
    await shot(page, 'chat');
  });

  it('asks before a tool call: approve runs it, its output shows in the tool block', async () => {
    await send(page, 'run a command');
    const approval = page.locator('section.approval');
    await approval.locator('pre.args', { hasText: 'echo approved-output' }).waitFor();
    await expectAccessible(page);
    await shot(page, 'approval');
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('The command ran.').waitFor();
    const block = page.locator('details.tool').last();
    await block.locator('.output', { hasText: 'approved-output' }).waitFor({ state: 'attached' });
    await expect(block.locator('.tool-state').textContent()).resolves.toBe('ok');
    await block.locator('summary').click();
    await block.locator('.output').waitFor();
    await shot(page, 'tool-call');
  });

  it('edits the arguments, checked against the tool schema before sending', async () => {
    await send(page, 'edit a command');
    const approval = page.locator('section.approval');
    await approval.getByRole('button', { name: 'Edit' }).click();
    const args = approval.getByLabel('Arguments (JSON)');
    await args.fill('{"command": 5}');
    await approval.locator('.error li', { hasText: 'command' }).waitFor();
    await expect(
      approval.getByRole('button', { name: 'Run with these arguments' }).isDisabled(),
    ).resolves.toBe(true);
    await args.fill('{"command": "echo edited-output"}');
    await approval.getByRole('button', { name: 'Run with these arguments' }).click();
    await page.getByText('The edited command ran.').waitFor();
    await page
      .locator('details.tool')
      .last()
      .locator('.output', { hasText: 'edited-output' })
      .waitFor({ state: 'attached' });
  });

  it('rejects a call with a message to the model', async () => {
    await send(page, 'reject a command');
    const approval = page.locator('section.approval');
    await approval.getByRole('button', { name: 'Reject…' }).click();
    await approval.getByLabel('Message to the model (optional)').fill('not today');
    await approval.getByRole('button', { name: 'Reject', exact: true }).click();
    await approval.waitFor({ state: 'detached' });
    await page.locator('.turn-status', { hasText: /Last turn: (rejected|ok)/ }).waitFor();
    const detail = (await (
      await worker.request(`/v1/sessions/${decodeURIComponent(sessionHash.slice(4))}`, { token: alice })
    ).json()) as { messages: Array<{ role: string; content: string }> };
    expect(detail.messages.some((m) => m.role === 'tool' && m.content.includes('not today'))).toBe(true);
    expect(detail.messages.some((m) => m.content.includes('never-run') && m.role === 'tool')).toBe(false);
  });

  it('cancels a running turn', async () => {
    await send(page, 'slow answer');
    await lastAnswer(page).getByText(/slow3/).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('The turn was cancelled.').waitFor();
    await expect(status(page).textContent()).resolves.toContain('cancelled');
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('reattaches after a reload in the middle of a turn, and a second tab sees the same turn', async () => {
    // A second tab of the same browser signs in (the token is per tab) and waits on the session.
    const second = await newTab(page.context());
    await signIn(second.page, alice);
    await second.page.goto(`${worker.url}/${sessionHash}`);
    await second.page.getByRole('heading', { name: 'Markdown demo' }).waitFor();
    await send(page, 'long answer');
    await lastAnswer(page).getByText(/word3/).waitFor();
    await page.reload();
    // Both tabs follow the turn live (still streaming: the reloaded one reattached, the other noticed it)…
    await Promise.all(
      [page, second.page].map((p) =>
        p.locator('.msg.assistant[aria-busy="true"]').waitFor({ state: 'attached' }),
      ),
    );
    // …to its end.
    for (const p of [page, second.page]) {
      await lastAnswer(p)
        .getByText(/END-OF-ANSWER/)
        .waitFor();
      await p.locator('.turn-status', { hasText: 'Last turn: ok' }).waitFor();
    }
    // The answer shows once in each tab, whole.
    for (const p of [page, second.page]) {
      const text = await lastAnswer(p).textContent();
      expect(text?.match(/word0 /g)?.length).toBe(1);
      expect(text).toContain('word249 END-OF-ANSWER');
    }
    expect(second.problems).toEqual([]);
    await second.page.close();
  });

  it('renders an answer carrying raw HTML and javascript:/data: links without running anything', async () => {
    await send(page, 'unsafe');
    const answer = lastAnswer(page);
    await answer.getByText('UNSAFE-END').waitFor();
    // No element carries a handler or a script; an image whose URL was refused has none (`src=""`).
    expect(await answer.locator('script, iframe, object, [onerror], [onclick]').count()).toBe(0);
    const sources = await answer
      .locator('img')
      .evaluateAll((images) => images.map((i) => i.getAttribute('src') ?? ''));
    expect(sources.filter((src) => src !== '')).toEqual([]);
    // The HTML shows as text.
    expect(await answer.textContent()).toContain('<img src=x onerror=');
    const hrefs = await answer
      .locator('a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(hrefs).toContain('https://example.com/docs');
    expect(hrefs.filter((h) => /^\s*(javascript|data):/i.test(h))).toEqual([]);
    await answer.getByText('click me').click();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('renames, searches and deletes sessions', async () => {
    await page.goto(`${worker.url}/#/new`);
    await page.getByLabel('Title (optional)').fill('Throwaway');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'Throwaway' }).waitFor();
    const list = page.getByRole('complementary', { name: 'Chats' });
    await list.getByRole('button', { name: 'Rename Markdown demo' }).click();
    await list.getByLabel('New title').fill('Renamed demo');
    await list.getByRole('button', { name: 'Save' }).click();
    await list.getByRole('link', { name: 'Renamed demo' }).waitFor();
    await page.getByLabel('Search chats').fill('renamed');
    await list.getByRole('link', { name: 'Throwaway' }).waitFor({ state: 'detached' });
    await list.getByRole('link', { name: 'Renamed demo' }).waitFor();
    await expectAccessible(page);
    await shot(page, 'sessions');
    await page.getByLabel('Search chats').fill('');
    await list.getByRole('button', { name: 'Delete Throwaway' }).click();
    await list.getByRole('button', { name: 'Delete “Throwaway”' }).click();
    await list.getByRole('link', { name: 'Throwaway' }).waitFor({ state: 'detached' });
    const { sessions } = (await (await worker.request('/v1/sessions', { token: alice })).json()) as {
      sessions: Array<{ title?: string }>;
    };
    expect(sessions.map((s) => s.title)).toEqual(['Renamed demo']);
  });

  it("a second user sees none of the first user's sessions, even by their URL", async () => {
    const other = await newTab(browser);
    await signIn(other.page, bob);
    await other.page.getByText('No chats yet.').waitFor();
    await other.page.goto(`${worker.url}/${sessionHash}`);
    await other.page.getByRole('alert').getByText('No such chat.').waitFor();
    expect(await other.page.getByText('Renamed demo').count()).toBe(0);
    await other.context.close();
  });

  it('runs, run detail, skills and tasks screens are accessible', async () => {
    await page.goto(`${worker.url}/#/runs`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    await expectAccessible(page);
    await shot(page, 'runs');
    await page.locator('tbody tr a[href^="#/runs/"]').first().click();
    await page.getByRole('heading', { name: /Run #\d+/ }).waitFor();
    await expectAccessible(page);
    await page.goto(`${worker.url}/${sessionHash}/skills`);
    await page.getByRole('heading', { name: 'Skills of this chat' }).waitFor();
    await page.getByText('raw-shell').first().waitFor();
    await expectAccessible(page);
    await shot(page, 'skills');
    await page.goto(`${worker.url}/#/tasks`);
    await page.getByRole('heading', { name: 'Scheduled tasks' }).waitFor();
    await expectAccessible(page);
  });

  it('is usable at 375 px wide, in the dark theme too', async () => {
    const phone = await newTab(browser, { width: 375, height: 740 });
    await phone.page.emulateMedia({ colorScheme: 'dark' });
    await signIn(phone.page, alice);
    await phone.page.goto(`${worker.url}/${sessionHash}`);
    await lastAnswer(phone.page).getByText('UNSAFE-END').waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await expect(phone.page.getByLabel('Message').isVisible()).resolves.toBe(true);
    await expectAccessible(phone.page);
    await shot(phone.page, 'phone-dark');
    await phone.context.close();
  });

  it('signs out: the token leaves session storage', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('birdie.token'))).toBeNull();
  });

  it("the server README shows each listed screen, as this run's picture", async () => {
    const readme = await readFile(SERVER_README, 'utf8');
    const section = readme.slice(readme.indexOf('## Web app'));
    const pictures = [...section.matchAll(/!\[[^\]]+\]\((docs\/screens\/[\w-]+\.png)\)/g)].map((m) => m[1]!);
    expect(pictures.length).toBeGreaterThanOrEqual(8);
    for (const picture of pictures) {
      const file = await stat(join(dirname(SERVER_README), picture));
      expect(file.size, picture).toBeGreaterThan(1000);
      expect(file.mtimeMs, `${picture} was made by this run`).toBeGreaterThanOrEqual(started - 1000);
    }
  });
});
