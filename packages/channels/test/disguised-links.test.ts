import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, OWNER, SLACK_OWNER, slackCore, startHarness, telegramCore } from './harness.js';

// A model's answer whose links show one address and lead to another, among honest ones.
const ANSWER = [
  '1. [https://bank.example](https://evil.example)',
  '2. [bank.example/login](https://evil.example/login)',
  '3. [support@bank.example](mailto:help@evil.example)',
  '4. [BANK.example][ref]',
  '5. ![www.bank.example](https://evil.example/logo.png)',
  '6. [ｈｔｔｐｓ://bank.example](https://evil.example/wide)',
  '7. [github.com/good/repo](https://github.com/evil/repo)',
  '8. [the docs](https://docs.example/guide)',
  '9. [docs.example](https://docs.example/guide/intro)',
  '10. [https://docs.example/guide/](https://docs.example/guide)',
  '11. [docs.example/guide](https://docs.example/guide/intro)',
  '12. <https://plain.example/x> and [ask us](mailto:team@docs.example)',
  '',
  '[ref]: https://evil.example/ref',
].join('\n');

/** Every link of the answer as the user sees it, [what it shows, where it goes]: disguised ones show their target. */
const EXPECTED: Array<[string, string]> = [
  ['https://evil.example/', 'https://evil.example/'],
  ['https://evil.example/login', 'https://evil.example/login'],
  ['mailto:help@evil.example', 'mailto:help@evil.example'],
  ['https://evil.example/ref', 'https://evil.example/ref'],
  ['https://evil.example/logo.png', 'https://evil.example/logo.png'],
  ['https://evil.example/wide', 'https://evil.example/wide'],
  ['https://github.com/evil/repo', 'https://github.com/evil/repo'],
  ['the docs', 'https://docs.example/guide'],
  ['docs.example', 'https://docs.example/guide/intro'],
  ['https://docs.example/guide/', 'https://docs.example/guide'],
  ['docs.example/guide', 'https://docs.example/guide/intro'],
  ['https://plain.example/x', 'https://plain.example/x'],
  ['ask us', 'mailto:team@docs.example'],
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

/** Slack's `<url|label>` (a bare `<url>` shows its address), its escapes undone. */
function slackLinks(mrkdwn: string): Array<[string, string]> {
  const shown = (s: string) =>
    s
      .replace(/[\u200b*_~]/g, '')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
  return [...mrkdwn.matchAll(/<([^<>|]+)(?:\|([^<>]*))?>/g)].map((m) => [
    shown(m[2] ?? m[1] ?? ''),
    shown(m[1] ?? ''),
  ]);
}

/** Telegram MarkdownV2's `[label](url)`, its backslash escapes undone. */
function telegramLinks(markdownV2: string): Array<[string, string]> {
  const shown = (s: string) => s.replace(/\\(.)/g, '$1').replace(/[*_~]/g, '');
  return [...markdownV2.matchAll(/\[((?:[^\]\\]|\\.)*)\]\(((?:[^)\\]|\\.)*)\)/g)].map((m) => [
    shown(m[1] ?? ''),
    shown(m[2] ?? ''),
  ]);
}

describe('links whose text is another address than their target', () => {
  it('Slack shows the real target of a disguised link; honest links stay as written', async () => {
    h = await startHarness({ slack: 'socket', script: [{ text: ANSWER }] });
    const { slack } = h;
    const dm = 'D0OWNER';
    await slack.deliver(slack.message(dm, SLACK_OWNER, 'where do I log in?'));
    await slack.waitFor('the answer', () =>
      slack.messagesIn(dm).find((m) => m.text.includes('plain.example')),
    );
    await slackCore(h).idle();
    const [answer] = slack.messagesIn(dm);
    expect(slackLinks(answer?.text ?? '')).toEqual(EXPECTED);
    expect(answer?.text).not.toContain('bank.example');
  });

  it('Slack shows its own link syntax the model wrote in code as text when it is a disguise', async () => {
    const raw = '<https://evil.example|https://bank.example>';
    const honest = '<https://docs.example/guide|the docs>';
    h = await startHarness({
      slack: 'socket',
      script: [{ text: `Paste \`${raw}\` or:\n\n\`\`\`\n${raw}\n${honest}\n\`\`\`` }],
    });
    const { slack } = h;
    const dm = 'D0OWNER';
    await slack.deliver(slack.message(dm, SLACK_OWNER, 'how do I write a link?'));
    await slack.waitFor('the answer', () => slack.messagesIn(dm).find((m) => m.text.includes('```')));
    await slackCore(h).idle();
    const [answer] = slack.messagesIn(dm);
    expect(slackLinks(answer?.text ?? '')).toEqual([['the docs', 'https://docs.example/guide']]);
    expect(answer?.text).toContain('&lt;https://evil.example|https://bank.example&gt;');
  });

  it('Telegram shows the real target of a disguised link; honest links stay as written', async () => {
    h = await startHarness({ script: [{ text: ANSWER }] });
    const { api } = h;
    api.push(api.message(OWNER, OWNER, 'where do I log in?'));
    await api.waitFor('the answer', () => api.messagesIn(OWNER).find((m) => m.text.includes('plain')));
    await telegramCore(h).idle();
    const [answer] = api.messagesIn(OWNER);
    expect(telegramLinks(answer?.text ?? '')).toEqual(EXPECTED);
    expect(answer?.text).not.toContain('bank');
  });
});
