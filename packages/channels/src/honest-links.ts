/**
 * Whether a link the user sees is disguised: its text, as the chat shows it, is an address (`https://bank.example`,
 * `bank.example/login`, `support@bank.example`) other than where the link leads. Each channel checks the links of
 * its RENDERED text (Slack's mrkdwn `<url|text>`, Telegram's MarkdownV2 `[text](url)`), not the model's Markdown:
 * the converters read Markdown in their own dialect (the last of two reference definitions, `[^x]` as a reference,
 * not a footnote), so only the output shows which text leads where. A disguised link is replaced by its target
 * alone, shown as its own text (`honestAddress`): the text is the lie, and shown beside the link it would still put
 * the trusted name in front of the user. A link whose text is ordinary words, or the target's own address (same
 * scheme when the text gives one, same host, and the text's path the start of the target's), is left as written.
 */

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
/** Ideographic full stops: URL parsing reads them as `.` (NFKC leaves U+3002, and turns U+FF61 into it). */
const IDEOGRAPHIC_DOT = /\u3002/g;

/**
 * A link's text as the user reads the address in it: compatibility forms (full-width `ｈｔｔｐｓ：／／`) folded,
 * invisible characters dropped, ideographic dots as dots, and the punctuation around it (`"…"`, `(…)`, `…,`, `…:`,
 * `^…`) left out, as a reader does. A closing bracket stays when its opening one is inside (`…/Foo_(bar)`).
 */
function asSeen(text: string): string {
  let shown = text.normalize('NFKC').replace(INVISIBLE, '').replace(IDEOGRAPHIC_DOT, '.').trim();
  shown = shown.replace(/^[^\p{L}\p{N}]+/u, '');
  for (;;) {
    const last = shown.at(-1);
    if (last === undefined || /[\p{L}\p{N}/]/u.test(last)) break;
    const opener = ({ ')': '(', ']': '[' } as Record<string, string>)[last];
    if (opener && shown.includes(opener)) break;
    shown = shown.slice(0, -1);
  }
  return shown;
}

/** The address a link's text shows, if it looks like one; a bare host takes the target's scheme. */
function addressShown(
  text: string,
  target: URL | undefined,
): { url: URL; scheme: boolean; path: boolean } | undefined {
  const shown = asSeen(text);
  if (shown === '' || /\s/.test(shown)) return undefined;
  if (SCHEME.test(shown))
    return URL.canParse(shown) ? { url: new URL(shown), scheme: true, path: true } : undefined;
  if (EMAIL.test(shown)) return { url: new URL(`mailto:${shown}`), scheme: true, path: true };
  if (!BARE_HOST.test(shown)) return undefined;
  const scheme = target && /^https?:$/.test(target.protocol) ? target.protocol : 'https:';
  const url = URL.canParse(`${scheme}//${shown}`) ? new URL(`${scheme}//${shown}`) : undefined;
  return url && { url, scheme: false, path: /[/?#]/.test(shown) };
}

/** The host and port, without the root's dot (`bank.example.` is `bank.example`). */
const hostOf = (url: URL) => url.host.replace(/\.(?=:\d+$|$)/, '');

/** Whether a link's text shows an address that is not where the link goes. */
export function isDisguised(text: string, target: string): boolean {
  const real = URL.canParse(target) ? new URL(target) : undefined;
  const shown = addressShown(text, real);
  if (!shown) return false;
  if (!real) return true; // an address shown, a relative or broken target
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
