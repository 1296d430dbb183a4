import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PageGlobals, useBrowserServer } from './browser.js';

// The app built into dist/web against a real listening server, in headless Chromium: what the approval card and the
// tool blocks show of arguments the model wrote.

type Globals = PageGlobals & { document: { querySelector(s: string): { innerText: string } | null } };

const request = {
  id: 'call-1',
  digest: 'd',
  tool: 'write_file',
  skill: 'filesystem',
  args: { path: 'notes\u202etxt.sh', content: 'echo hi\u200b' },
  description: 'filesystem › write_file({"path":"notes\u202etxt.sh","content":"echo hi\u200b"})',
  reason: 'approval-required' as const,
};

describe('the approval card in Chromium', { timeout: 60_000 }, () => {
  const web = useBrowserServer({ webRoot: join(import.meta.dirname, '..', 'dist', 'web') });

  it('shows a bidi override and a zero-width space the model put in the arguments escaped, never raw (report 3)', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [request];
    const page = await web.page();
    await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
    await page.locator('.approval').waitFor();
    const card = await page.locator('.approval').innerText();
    expect(card).not.toMatch(/[\u202e\u200b]/);
    expect(card).toContain('notes\\u202etxt.sh');
    expect(card).toContain('echo hi\\u200b');
    // Edit starts from the same text, and it still means the model's exact arguments.
    await page.locator('.approval button', { hasText: /^Edit$/ }).click();
    const edited = await page.locator('.approval textarea').inputValue();
    expect(edited).not.toMatch(/[\u202e\u200b]/);
    expect(JSON.parse(edited)).toEqual(request.args);
    await page.context().close();
  });

  it('shows the tool calls of a chat’s history with their invisible characters escaped', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [];
    const history = web.runtime.history;
    web.runtime.history = async () => ({
      messages: [
        { role: 'human', content: 'write' },
        { role: 'ai', content: '', tool_calls: [{ id: 't1', name: 'write\u2066_file', args: request.args }] },
        { role: 'tool', tool_call_id: 't1', content: 'wrote it' },
      ],
      grants: { enabled: [], disabled: [] },
    });
    try {
      const page = await web.page();
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.tool').waitFor();
      await page.locator('.tool summary').click();
      const block = await page.evaluate(
        () => (globalThis as unknown as Globals).document.querySelector('.tool')!.innerText,
      );
      expect(block).not.toMatch(/[\u202e\u200b\u2066]/);
      expect(block).toContain('write\\u2066_file');
      expect(block).toContain('notes\\u202etxt.sh');
      await page.context().close();
    } finally {
      web.runtime.history = history;
    }
  });

  it('shows a preview error with its invisible characters escaped too', async () => {
    const session = await web.store.sessions.create('alice', { perUser: true });
    web.runtime.pending = [{ ...request, preview: { error: 'cannot read notes\u202etxt.sh\u200b' } }];
    try {
      const page = await web.page();
      await page.goto(`${web.url}/#/s/${encodeURIComponent(session.id)}`);
      await page.locator('.approval').waitFor();
      const card = await page.locator('.approval').innerText();
      expect(card).not.toMatch(/[\u202e\u200b]/);
      expect(card).toContain('No preview: cannot read notes\\u202etxt.sh\\u200b');
      await page.context().close();
    } finally {
      web.runtime.pending = [];
    }
  });
});
