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

// What a review found still disguised: a reference defined twice and footnote syntax (the renderers read Markdown
// otherwise than CommonMark), invisible or look-alike characters and punctuation around the address, userinfo in
// the target; and labels with an underscore or that look like file names, which must stay working links.
const REVIEWED = [
  '1. Log in at [bank.example][twice]',
  '2. Log in: [^https://bank.example/login]',
  '3. [my_file.md](https://github.com/x/y/blob/main/my_file.md)',
  '4. [README.md](https://github.com/x/y/blob/main/README.md)',
  '5. [bank.example\u3164](https://evil.example/filler)',
  '6. [bank.example\u2800](https://evil.example/braille)',
  '7. [bank\u3002example](https://evil.example/dot1)',
  '8. [bank\uff0eexample](https://evil.example/dot2)',
  '9. [bank\uff61example](https://evil.example/dot3)',
  '10. ["bank.example"](https://evil.example/quoted)',
  '11. [(bank.example)](https://evil.example/paren)',
  '12. [bank.example,](https://evil.example/comma)',
  '13. [bank.example:](https://evil.example/colon)',
  '14. [https://bank.example](https://bank.example@evil.example)',
  '',
  '[twice]: https://bank.example',
  '[twice]: https://evil.example/twice',
  '[^https://bank.example/login]: https://evil.example/footnote',
].join('\n');

const itself = (url: string): [string, string] => [url, url];
const REVIEWED_FOOTNOTE = itself('https://evil.example/footnote');
const REVIEWED_REST: Array<[string, string]> = [
  ['my_file.md', 'https://github.com/x/y/blob/main/my_file.md'],
  itself('https://github.com/x/y/blob/main/README.md'),
  ...['filler', 'braille', 'dot1', 'dot2', 'dot3', 'quoted', 'paren', 'comma', 'colon'].map((p) =>
    itself(`https://evil.example/${p}`),
  ),
  itself('https://evil.example/'),
];

// A second review: a code span with `]` in a Telegram label, scheme texts no URL parser reads, userinfo behind
// ordinary words, file and API names that are no addresses (their last part is no top-level domain), an address
// among words, and look-alike punctuation NFKC does not fold.
const SECOND_REVIEW = [
  '1. Sign in: [`https://bank.example/login]`](https://evil.example/code1)',
  '2. [ `[bank.example]` ](https://evil.example/code2)',
  '3. [https://bank.example:99999/login](https://evil.example/port)',
  '4. [https://bank.example%/login](https://evil.example/percent)',
  '5. [Click here](https://bank.example@evil.example/userinfo)',
  '6. [Node.js](https://nodejs.org) [Vue.js](https://vuejs.org) [package.json](https://x.example/package.json)',
  '7. [config.yaml](https://x.example/c) [index.ts](https://x.example/i) [next.config.js](https://x.example/n)',
  '8. [Object.keys](https://developer.mozilla.org/keys) [os.path.join](https://docs.python.org/join)',
  '9. [https://bank.example/login now](https://evil.example/words1)',
  '10. [Sign in at bank.example](https://evil.example/words2) [see docs.example now](https://docs.example/a)',
  '11. [bank.example\u2215login](https://evil.example/slash1) [bank.example\u2044login](https://evil.example/slash2)',
  '12. [https\u2236//bank.example](https://evil.example/colon) [bank\ua4f8example](https://evil.example/dot4)',
  '13. [bank\u0660example](https://evil.example/dot5) [bank\u0702example](https://evil.example/dot6)',
  '14. [bank\u00b7example](https://evil.example/dot7) [bank.example](HTTPS://EVIL.EXAMPLE/upper)',
].join('\n');

const SECOND_REVIEW_EXPECTED: Array<[string, string]> = [
  ...['code1', 'code2', 'port', 'percent'].map((p) => itself(`https://evil.example/${p}`)),
  ['Click here', 'https://evil.example/userinfo'],
  ['Node.js', 'https://nodejs.org'],
  ['Vue.js', 'https://vuejs.org'],
  ['package.json', 'https://x.example/package.json'],
  ['config.yaml', 'https://x.example/c'],
  ['index.ts', 'https://x.example/i'],
  ['next.config.js', 'https://x.example/n'],
  ['Object.keys', 'https://developer.mozilla.org/keys'],
  ['os.path.join', 'https://docs.python.org/join'],
  ...['words1', 'words2'].map((p) => itself(`https://evil.example/${p}`)),
  ['see docs.example now', 'https://docs.example/a'],
  ...['slash1', 'slash2', 'colon', 'dot4', 'dot5', 'dot6', 'dot7', 'upper'].map((p) =>
    itself(`https://evil.example/${p}`),
  ),
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await h?.cleanup();
  h = undefined;
});

/** The answer the fake Slack received for `text`, the model's answer, once it holds `until`, in the owner's DM. */
async function slackAnswer(text: string, until: string, ask = 'where do I log in?'): Promise<string> {
  h = await startHarness({ slack: 'socket', script: [{ text }] });
  const { slack } = h;
  const dm = 'D0OWNER';
  await slack.deliver(slack.message(dm, SLACK_OWNER, ask));
  await slack.waitFor('the answer', () => slack.messagesIn(dm).find((m) => m.text.includes(until)));
  await slackCore(h).idle();
  return slack.messagesIn(dm)[0]?.text ?? '';
}

/** The answer the fake Telegram Bot API received for `text`, the model's answer, once it holds `until`. */
async function telegramAnswer(text: string, until: string): Promise<string> {
  h = await startHarness({ script: [{ text }] });
  const { api } = h;
  api.push(api.message(OWNER, OWNER, 'where do I log in?'));
  await api.waitFor('the answer', () => api.messagesIn(OWNER).find((m) => m.text.includes(until)));
  await telegramCore(h).idle();
  return api.messagesIn(OWNER)[0]?.text ?? '';
}

/** Slack's `<url|label>` (a bare `<url>` shows its address), its escapes undone. */
function slackLinks(mrkdwn: string): Array<[string, string]> {
  const shown = (s: string) =>
    s
      .replace(/\u200b/g, '')
      .replace(/(^|\s)[*_~]+|[*_~]+(?=\s|$)/g, '$1')
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
  const shown = (s: string) => s.replace(/\\(.)|[*_~]/g, (_, escaped?: string) => escaped ?? '');
  return [...markdownV2.matchAll(/\[((?:[^\]\\]|\\.)*)\]\(((?:[^)\\]|\\.)*)\)/g)].map((m) => [
    shown(m[1] ?? ''),
    (m[2] ?? '').replace(/\\(.)/g, '$1'),
  ]);
}

describe('links whose text is another address than their target', () => {
  it('Slack shows the real target of a disguised link; honest links stay as written', async () => {
    const answer = await slackAnswer(ANSWER, 'plain.example');
    expect(slackLinks(answer)).toEqual(EXPECTED);
    expect(answer).not.toContain('bank.example');
  });

  it('Slack shows the target of a disguise the model wrote in its own link syntax inside code', async () => {
    const raw = '<https://evil.example|https://bank.example>';
    const honest = '<https://docs.example/guide|the docs>';
    const answer = await slackAnswer(
      `Paste \`${raw}\` or:\n\n\`\`\`\n${raw}\n${honest}\n\`\`\``,
      '```',
      'how do I write a link?',
    );
    // Like every link of the mrkdwn: the conversion passes code through, and Slack links it.
    expect(slackLinks(answer)).toEqual([
      ['https://evil.example/', 'https://evil.example/'],
      ['https://evil.example/', 'https://evil.example/'],
      ['the docs', 'https://docs.example/guide'],
    ]);
    expect(answer).not.toContain('bank.example');
  });

  it('Telegram shows the real target of a disguised link; honest links stay as written', async () => {
    const answer = await telegramAnswer(ANSWER, 'plain');
    expect(telegramLinks(answer)).toEqual(EXPECTED);
    expect(answer).not.toContain('bank');
  });

  it('Slack shows the real target of what the review found still disguised; other links keep working', async () => {
    const answer = await slackAnswer(REVIEWED, 'footnote');
    // Slack's conversion has no footnotes: the reference stays text, its definition an honest link at the end.
    expect(slackLinks(answer)).toEqual([
      itself('https://evil.example/twice'),
      ...REVIEWED_REST,
      REVIEWED_FOOTNOTE,
    ]);
    expect(answer).not.toMatch(/\|[^<>]*bank/);
  });

  it('Telegram shows the real target of what the review found still disguised; other links keep working', async () => {
    const answer = await telegramAnswer(REVIEWED, 'colon');
    expect(telegramLinks(answer)).toEqual([
      itself('https://evil.example/twice'),
      REVIEWED_FOOTNOTE,
      ...REVIEWED_REST,
    ]);
    expect(answer).not.toContain('bank');
  });

  it('Slack shows the real target of what the second review found; file and API names stay as written', async () => {
    const answer = await slackAnswer(SECOND_REVIEW, 'upper');
    expect(slackLinks(answer)).toEqual(SECOND_REVIEW_EXPECTED);
    expect(answer).not.toContain('bank');
  });

  it('Telegram shows the real target of what the second review found; file and API names stay as written', async () => {
    const answer = await telegramAnswer(SECOND_REVIEW, 'upper');
    expect(telegramLinks(answer)).toEqual(SECOND_REVIEW_EXPECTED);
    expect(answer).not.toContain('bank');
  });

  it('Telegram reads @name as its t.me address, and makes no link of one it cannot check', async () => {
    const answer = [
      '1. [@bankofficial](https://t.me/evilbot) [write to @bankofficial.](https://t.me/evilbot) [@evilbot](https://t.me/evilbot)',
      '2. [bank.example ![bank.example](https://bank.example/logo.png)](https://evil.example/nested)',
    ].join('\n');
    const text = await telegramAnswer(answer, 'nested');
    expect(telegramLinks(text.split('\n')[0] ?? '')).toEqual([
      itself('https://t.me/evilbot'),
      itself('https://t.me/evilbot'),
      ['@evilbot', 'https://t.me/evilbot'],
    ]);
    // A link around a link: the outer `](` is escaped, so no text of it leads to evil.example.
    expect(text).not.toMatch(/(?<!\\)\]\(https:\/\/evil\.example\/nested/);
  });
});
