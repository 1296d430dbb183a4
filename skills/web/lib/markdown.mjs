// HTML to readable Markdown: linkedom parses the page (no browser, Node 20; jsdom 31 needs Node 22), Mozilla's
// Readability picks the article when it finds one (menus, footers and ads left out), and turndown writes Markdown.
// Scripts, styles and other non-content elements never reach the text. Links and images get absolute URLs.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** @typedef {ReturnType<typeof parseHTML>['document']} Page */

const NON_CONTENT = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
];

/** @param {string} html @param {URL} base @returns {{ title: string; markdown: string }} */
export function htmlToMarkdown(html, base) {
  const { document } = parseHTML(html);
  for (const element of document.querySelectorAll(NON_CONTENT.join(','))) element.remove();
  absolutise(document, base);
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  // Readability changes the document it is given: give it a copy so the whole page stays for the fallback.
  const article = readable(document);
  const body = article?.content ?? document.body?.innerHTML ?? html;
  const markdown = turndown()
    .turndown(body)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: article?.title?.trim() || title, markdown };
}

/** @param {Page} document */
function readable(document) {
  try {
    const copy = /** @type {Page} */ (document.cloneNode(true));
    const article = new Readability(copy, { charThreshold: 200 }).parse();
    return article?.content && (article.textContent ?? '').trim().length >= 200 ? article : null;
  } catch {
    return null; // a page Readability cannot read is converted whole
  }
}

/** @param {Page} document @param {URL} base */
function absolutise(document, base) {
  for (const [selector, attribute] of /** @type {const} */ ([
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ])) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute) ?? '';
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
}

function turndown() {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
  });
  // Links to scripts (`javascript:`) say nothing to a reader: keep their text only.
  service.addRule('scriptLinks', {
    filter: (node) => node.nodeName === 'A' && /^\s*javascript:/i.test(node.getAttribute('href') ?? ''),
    replacement: (content) => content,
  });
  return service;
}
