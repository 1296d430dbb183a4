import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserServer } from './browser.js';

// Sibling of the MCP fix (report item 3): the approval card offered "Approve for this chat" — the whole tool for the
// session — at a raw shell command (one click let every later command the model writes run unasked) and at a call an
// ask rule asks about (no session approval answers it: it asks every time). The API takes no pattern answer, so
// neither card offers a session choice.

const base = { digest: 'd', description: 'x', skill: 'shell' };
const raw = {
  ...base,
  id: 'call-raw',
  tool: 'run_bash',
  raw: true as const,
  args: { command: 'touch notes.txt' },
  description: 'Run shell command: touch notes.txt',
  reason: 'raw-command' as const,
};
const asked = {
  ...base,
  id: 'call-rule',
  tool: 'write_file',
  skill: 'filesystem',
  args: { path: '.github/ci.yml', content: 'x' },
  description: 'filesystem › write_file(.github/ci.yml)',
  reason: 'rule' as const,
  rule: { pattern: 'write_file(path=.github/**)', effect: 'ask' as const, source: { kind: 'user' as const } },
};
const plain = {
  ...base,
  id: 'call-plain',
  tool: 'write_file',
  skill: 'filesystem',
  args: { path: 'notes.txt', content: 'x' },
  description: 'filesystem › write_file(notes.txt)',
  reason: 'approval-required' as const,
};

describe('the approval card’s session choice in Chromium', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('offers no "Approve for this chat" at a raw shell command nor at an ask rule’s question; other calls keep it', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [raw, asked, plain];
    const page = await web.page();
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('.approval').nth(2).waitFor();
    const buttons = async (n: number) =>
      (await page.locator('.approval').nth(n).locator('.buttons button').allInnerTexts()).map((t) =>
        t.trim(),
      );
    expect(await buttons(0)).toEqual(['Approve', 'Edit', 'Reject…']);
    expect(await buttons(1)).toEqual(['Approve', 'Edit', 'Reject…']);
    expect(await buttons(2)).toEqual(['Approve', 'Approve for this chat', 'Edit', 'Reject…']);
    await page.context().close();
  });
});
