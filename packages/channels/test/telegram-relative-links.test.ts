import { afterEach, describe, expect, it } from 'vitest';
import { toTelegram } from '../src/index.js';
import { type Harness, OWNER, startHarness, telegramCore } from './harness.js';

// A relative link (`[app.py](app.py)`, a file of the workspace) cannot be a link in Telegram: its text is shown as
// text, escaped once for MarkdownV2 (the converter escaped it twice: the user read `app\.py`).

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

describe('relative links in an answer sent to Telegram', () => {
  it('show their text as written, not escaped twice', async () => {
    h = await startHarness({ script: [{ text: 'Done: see [app.py](app.py) and [a_b](./x).' }] });
    const api = h.api;
    api.push(api.message(OWNER, OWNER, 'where is it?'));
    const sent = await api.waitFor('the answer', () =>
      api.messagesIn(OWNER).find((m) => m.text.startsWith('Done')),
    );
    await telegramCore(h).idle();
    // MarkdownV2 that Telegram shows as `Done: see app.py and a_b.`
    expect(sent.text).toBe('Done: see app\\.py and a\\_b\\.\n');
  });

  it.each([
    ['see [app.py](app.py)', 'see app\\.py'],
    ['[a_b](./x)', 'a\\_b'],
    ['[a.b](/docs/a.b#top)', 'a\\.b'],
    ['[**a_b**](docs/x.md) and [c*d](#anchor)', '*a\\_b* and c\\*d'],
    // A reference whose definition is relative, too.
    ['[a_b][r]\n\n[r]: ./x', 'a\\_b'],
    // A link Telegram can open stays a link; code in a relative link's text stays code.
    ['[a_b](https://example.com/y) and [`x_y`](x.py)', '[a\\_b](https://example.com/y) and `x_y`'],
  ])('%j as MarkdownV2 is %j', (markdown, expected) => {
    expect(toTelegram(markdown).trimEnd()).toBe(expected);
  });
});
