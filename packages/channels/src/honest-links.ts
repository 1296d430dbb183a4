/**
 * Whether a link the user sees is disguised: its text, as the chat shows it, names an address (`https://bank.example`,
 * `bank.example/login`, `support@bank.example`, alone or among words) other than where the link leads. Each channel
 * checks the links of its RENDERED text (Slack's mrkdwn `<url|text>`, Telegram's MarkdownV2 `[text](url)`), not the
 * model's Markdown: the converters read Markdown in their own dialect (the last of two reference definitions, `[^x]`
 * as a reference, not a footnote), so only the output shows which text leads where. A disguised link is replaced by
 * its target alone, shown as its own text (`honestAddress`): the text is the lie, and shown beside the link it would
 * still put the trusted name in front of the user. A link whose text is ordinary words, or the target's own address
 * (same scheme when the text gives one, same host, and the text's path the start of the target's), is left as
 * written. A bare name (`Node.js`, `package.json`) is an address only when it ends in a real top-level domain.
 */

import { parse } from 'tldts';

/** A label/host part: letters and digits of any script, hyphens inside. */
const HOST_LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`;
/** A host name with a top-level part of letters (or an IDN's `xn--`), or an IPv4 address; a port may follow. */
const HOST = String.raw`(?:(?:${HOST_LABEL}\.)+(?:\p{L}{2,}|xn--[a-z\d-]+)\.?|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?`;
const BARE_HOST = new RegExp(String.raw`^${HOST}(?:[/?#]\S*)?$`, 'iu');
const EMAIL = new RegExp(String.raw`^[^\s@/:]+@${HOST}$`, 'iu');
/** A scheme with an authority (`https://`, `ftp://`), or one that names an address without it. */
const SCHEME = /^(?:[a-z][a-z\d+.-]*:\/\/|(?:mailto|tel|sms|xmpp):)/i;

/** Characters that show as nothing, or as a blank that is no space (U+3164 Hangul filler, U+2800 braille blank). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/gu;
/**
 * Look-alikes NFKC leaves as they are: the ideographic full stop (URL parsing reads it as `.`; NFKC turns U+FF61
 * into it), and punctuation a reader takes for `/` (division and fraction slash), `:` (ratio) or `.` (Lisu letter
 * tone, Arabic-Indic zero, Syriac full stop, middle dot).
 */
const LOOK_ALIKES: Array<[RegExp, string]> = [
  [/[\u3002\ua4f8\u0660\u0702\u00b7]/g, '.'],
  [/[\u2215\u2044]/g, '/'],
  [/\u2236/g, ':'],
];

/**
 * Top-level names reserved for tests, documentation and local networks (RFC 2606, 6761, 6762, 7686, 9476): not
 * in the public suffix list, yet a reader takes `bank.example` or `printer.local` for an address.
 */
const SPECIAL_USE = new Set(['example', 'test', 'invalid', 'localhost', 'local', 'onion', 'alt', 'internal']);

/**
 * A link's text as the user reads it: compatibility forms (full-width `ｈｔｔｐｓ：／／`) folded, invisible characters
 * dropped, look-alike punctuation as what it looks like.
 */
function asRead(text: string): string {
  let read = text.normalize('NFKC').replace(INVISIBLE, '');
  for (const [lookAlike, meant] of LOOK_ALIKES) read = read.replace(lookAlike, meant);
  return read;
}

/**
 * A word of a link's text as the user reads the address in it: the punctuation around it (`"…"`, `(…)`, `…,`, `…:`,
 * `^…`) left out, as a reader does. A closing bracket stays when its opening one is inside (`…/Foo_(bar)`).
 */
function asSeen(word: string): string {
  let shown = word.replace(/^[^\p{L}\p{N}]+/u, '');
  for (;;) {
    const last = shown.at(-1);
    if (last === undefined || /[\p{L}\p{N}/]/u.test(last)) break;
    const opener = ({ ')': '(', ']': '[' } as Record<string, string>)[last];
    if (opener && shown.includes(opener)) break;
    shown = shown.slice(0, -1);
  }
  return shown;
}

/**
 * Whether a bare name (no scheme, `www.`, path or `@`) is a host a reader takes for an address: its top-level part
 * is a real one (the public suffix list's ICANN section, or a reserved name), or it is an IPv4 address. `Node.js`,
 * `package.json`, `os.path.join` are names, not addresses; `README.md`, `app.py` end in real domains and count.
 */
function namesRealHost(shown: string): boolean {
  if (/^www\.|[/?#]/i.test(shown)) return true;
  const name = parse(shown.replace(/:\d+$/, ''));
  if (name.isIp || name.isIcann) return true;
  const top = name.publicSuffix?.toLowerCase();
  return top !== undefined && top !== null && SPECIAL_USE.has(top);
}

/**
 * The address a word of a link's text shows, if it looks like one (a bare host takes the target's scheme);
 * `unreadable` when it starts with a scheme but no URL parser reads it (`https://bank.example:99999/`), which a
 * reader still takes for that host.
 */
function addressShown(
  shown: string,
  target: URL | undefined,
): { url: URL; scheme: boolean; path: boolean } | 'unreadable' | undefined {
  if (SCHEME.test(shown))
    return URL.canParse(shown) ? { url: new URL(shown), scheme: true, path: true } : 'unreadable';
  if (EMAIL.test(shown)) return { url: new URL(`mailto:${shown}`), scheme: true, path: true };
  if (!BARE_HOST.test(shown) || !namesRealHost(shown)) return undefined;
  const scheme = target && /^https?:$/.test(target.protocol) ? target.protocol : 'https:';
  const url = URL.canParse(`${scheme}//${shown}`) ? new URL(`${scheme}//${shown}`) : undefined;
  return url && { url, scheme: false, path: /[/?#]/.test(shown) };
}

/** The host and port, without the root's dot (`bank.example.` is `bank.example`). */
const hostOf = (url: URL) => url.host.replace(/\.(?=:\d+$|$)/, '');

/** Whether a link's text shows an address (alone or among words) that is not where the link goes. */
export function isDisguised(text: string, target: string): boolean {
  const real = URL.canParse(target) ? new URL(target) : undefined;
  return asRead(text)
    .split(/\s+/)
    .some((word) => {
      const shown = asSeen(word);
      return shown !== '' && leadsElsewhere(addressShown(shown, real), real);
    });
}

function leadsElsewhere(shown: ReturnType<typeof addressShown>, real: URL | undefined): boolean {
  if (shown === undefined) return false;
  if (shown === 'unreadable' || !real) return true; // an address shown, a relative or broken target
  const { url } = shown;
  // `https://bank.example@evil.example` leads to evil.example: a text with userinfo names a host it does not go to.
  if (url.username !== '' || url.password !== '') return true;
  if (shown.scheme && url.protocol !== real.protocol) return true;
  if (url.host === '' || real.host === '') return url.href.toLowerCase() !== real.href.toLowerCase(); // mailto:, tel:
  if (hostOf(url) !== hostOf(real)) return true;
  if (!shown.path) return false;
  const segments = (u: URL) => u.pathname.split('/').filter((s) => s !== '');
  const shownPath = segments(url);
  const realPath = segments(real);
  if (shownPath.some((s, i) => realPath[i] !== s)) return true;
  return (url.search !== '' && url.search !== real.search) || (url.hash !== '' && url.hash !== real.hash);
}

/**
 * A target with userinfo (`https://bank.example@evil.example`) without it, whatever the link's text: the address a
 * chat shows before opening a link must start with the host it opens. Undefined when the target has none.
 */
export function withoutUserinfo(target: string): string | undefined {
  if (!URL.canParse(target)) return undefined;
  const url = new URL(target);
  return url.username === '' && url.password === '' ? undefined : honestAddress(target);
}

/**
 * The address a disguised link is shown as, for the channel to make it a link that shows its own address: the
 * parsed URL (IDN hosts in their `xn--` form, so look-alike letters show) without userinfo, so what is shown starts
 * with the host it goes to; undefined when the target is no absolute URL (then the channel shows it as text).
 */
export function honestAddress(target: string): string | undefined {
  if (!URL.canParse(target)) return undefined;
  const url = new URL(target);
  url.username = '';
  url.password = '';
  return url.href;
}
