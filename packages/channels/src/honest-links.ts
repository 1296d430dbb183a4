import type { Definition, Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString as textOf } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';

/**
 * Markdown from the model with no disguised link left: a link (or image, or reference to either) whose text looks
 * like an address (`https://bank.example`, `bank.example/login`, `support@bank.example`) that is not where it leads
 * is replaced by its target alone, shown as the link's own text (`<https://evil.example/>`). Every renderer (Slack's
 * mrkdwn, Telegram's MarkdownV2) converts this text, so what the user sees of an address is where it goes.
 *
 * The target alone rather than the text and the target: the text is the lie, and shown beside the link it would
 * still put the trusted name in front of the user (and become a second link: chat apps link bare addresses). A
 * link whose text is ordinary words, or the target's own address (same scheme when the text gives one, same host,
 * and the text's path the start of the target's), is left exactly as written.
 */
export function revealLinkTargets(markdown: string): string {
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const definitions = new Map<string, string>();
  walk(tree, (node) => {
    // CommonMark: the first definition of a label wins.
    if (node.type === 'definition' && !definitions.has(node.identifier))
      definitions.set(node.identifier, (node as Definition).url);
    return true;
  });
  const replaced: Array<{ start: number; end: number; text: string }> = [];
  walk(tree, (node) => {
    const link = linkOf(node, definitions);
    if (!link || !isDisguised(link.shown, link.target)) return true;
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return true;
    replaced.push({ start, end, text: shownAsItself(link.target) });
    return false; // a link inside it (an image as its text) goes with it
  });
  let out = markdown;
  for (const { start, end, text } of replaced.reverse()) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

/** What a link-like node shows and where it goes (a reference through its definition); undefined for other nodes. */
function linkOf(
  node: Nodes,
  definitions: ReadonlyMap<string, string>,
): { shown: string; target: string } | undefined {
  switch (node.type) {
    case 'link':
      return { shown: textOf(node), target: node.url };
    case 'image':
      return { shown: node.alt ?? '', target: node.url };
    case 'linkReference':
    case 'imageReference': {
      const target = definitions.get(node.identifier);
      if (target === undefined) return undefined; // no definition: CommonMark shows it as text
      return { shown: node.type === 'linkReference' ? textOf(node) : (node.alt ?? ''), target };
    }
    default:
      return undefined;
  }
}

function walk(node: Nodes, visit: (node: Nodes) => boolean): void {
  if (!visit(node) || !('children' in node)) return;
  for (const child of node.children) walk(child, visit);
}

/** A label/host part: letters and digits of any script, hyphens inside. */
const HOST_LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`;
/** A host name with a top-level part of letters (or an IDN's `xn--`), or an IPv4 address; a port may follow. */
const HOST = String.raw`(?:(?:${HOST_LABEL}\.)+(?:\p{L}{2,}|xn--[a-z\d-]+)\.?|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?`;
const BARE_HOST = new RegExp(String.raw`^${HOST}(?:[/?#]\S*)?$`, 'iu');
const EMAIL = new RegExp(String.raw`^[^\s@/:]+@${HOST}$`, 'iu');
/** A scheme with an authority (`https://`, `ftp://`), or one that names an address without it. */
const SCHEME = /^(?:[a-z][a-z\d+.-]*:\/\/|(?:mailto|tel|sms|xmpp):)/i;

/** The address a link's text shows, if it looks like one; a bare host takes the target's scheme. */
function addressShown(
  text: string,
  target: URL | undefined,
): { url: URL; scheme: boolean; path: boolean } | undefined {
  // As the user sees it: compatibility forms (full-width `ｈｔｔｐｓ：／／`) folded, invisible characters dropped.
  const shown = text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .trim();
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
 * The target as a link that shows its own address: an autolink of the parsed URL (IDN hosts in their `xn--` form,
 * so look-alike letters show; `|` escaped, which Slack would read as the end of the address), or, for a target that
 * is no absolute URL, the target as plain text.
 */
function shownAsItself(target: string): string {
  if (!URL.canParse(target)) return target.replace(/[!-/:-@[-`{-~]/g, '\\$&');
  return `<${new URL(target).href.replaceAll('|', '%7C')}>`;
}
