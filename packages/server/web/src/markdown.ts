import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/**
 * Untrusted Markdown (model output, tool output, titles) → HTML that is safe to insert. micromark's defaults do the
 * work: raw HTML is escaped (`allowDangerousHtml: false`) and link/image URLs with a protocol other than http(s),
 * mailto, irc(s) and xmpp are dropped (`allowDangerousProtocol: false`), so `javascript:` and `data:` never reach an
 * `href` or `src`. GFM adds tables, strikethrough, autolinks and task lists.
 */
export function renderMarkdown(source: string): string {
  const html = micromark(source, {
    allowDangerousHtml: false,
    allowDangerousProtocol: false,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
  // Links open outside the app, without giving the opened page a handle on it.
  return html.replace(/<a href="/g, '<a rel="noopener noreferrer nofollow" target="_blank" href="');
}
