import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/**
 * Untrusted Markdown (model output, tool output, titles) → HTML that is safe to insert. micromark's defaults do the
 * work: raw HTML is escaped (`allowDangerousHtml: false`) and link/image URLs with a protocol other than http(s),
 * mailto, irc(s) and xmpp are dropped (`allowDangerousProtocol: false`), so `javascript:` and `data:` never reach an
 * `href` or `src`. GFM adds tables, strikethrough, autolinks and task lists. No image is shown: each is a link to it.
 */
export function renderMarkdown(source: string): string {
  const html = micromark(source, {
    allowDangerousHtml: false,
    allowDangerousProtocol: false,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
  return (
    html
      // No image is loaded (the page's CSP allows none from elsewhere, and a remote one would tell its server who
      // reads): each is a link to it, named by its alt text; one whose URL was dropped is its alt text alone.
      .replace(/<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g, (_, src: string, alt: string) =>
        src ? `<a href="${src}">image: ${alt || src}</a>` : `image: ${alt}`,
      )
      // A link whose URL was dropped (javascript:, data:) is its text: an empty href would open the app itself.
      .replace(/<a href=""(?: title="[^"]*")?>([\s\S]*?)<\/a>/g, '$1')
      // Links open outside the app, without giving the opened page a handle on it.
      .replace(/<a href="/g, '<a rel="noopener noreferrer nofollow" target="_blank" href="')
  );
}
