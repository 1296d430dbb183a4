// Turns DuckDuckGo's HTML result page (html.duckduckgo.com/html/) into { title, url, snippet } records.
import { attribute, textOf } from './html.mjs';

/** @typedef {{ title: string; url: string; snippet: string }} SearchResult */

const RESULT_START = /<div[^>]*\sclass="([^"]*\bresult\b[^"]*)"[^>]*>/gi;
const TITLE = /<a\b[^>]*\bclass="[^"]*\bresult__a\b[^"]*"[^>]*>([\s\S]*?)<\/a>/i;
const SNIPPET = /<(a|td|div)\b[^>]*\bclass="[^"]*\bresult__snippet\b[^"]*"[^>]*>([\s\S]*?)<\/\1>/i;

/**
 * @param {string} html
 * @returns {{ results: SearchResult[]; noResults: boolean; blocked: boolean }}
 */
export function parseResults(html) {
  const starts = [...html.matchAll(RESULT_START)];
  /** @type {SearchResult[]} */
  const results = [];
  const seen = new Set();
  starts.forEach((start, index) => {
    const classes = start[1] ?? '';
    // Sponsored entries carry `result--ad`; "no results" notices reuse the result markup.
    if (/\bresult--(ad|no-result)\b/.test(classes)) return;
    const block = html.slice(start.index, starts[index + 1]?.index ?? html.length);
    const title = TITLE.exec(block);
    if (!title) return;
    const url = targetOf(attribute(title[0].slice(0, title[0].indexOf('>') + 1), 'href'));
    if (!url || seen.has(url)) return;
    seen.add(url);
    const snippet = SNIPPET.exec(block);
    results.push({ title: textOf(title[1] ?? ''), url, snippet: snippet ? textOf(snippet[2] ?? '') : '' });
  });
  return {
    results,
    noResults: results.length === 0 && /class="[^"]*\bno-results\b|result--no-result/.test(html),
    // The page DuckDuckGo serves when it suspects automation has a challenge form instead of results.
    blocked: results.length === 0 && /anomaly-modal|id="challenge-form"|\banomaly\.js\b/.test(html),
  };
}

/**
 * Result links go through DuckDuckGo's redirector (`//duckduckgo.com/l/?uddg=<target>`); the target is what a reader
 * wants. Ad redirects (`/y.js`) and anything that is not http(s) are dropped.
 * @param {string | undefined} href
 */
function targetOf(href) {
  if (!href) return undefined;
  let url;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  if (/(^|\.)duckduckgo\.com$/.test(url.hostname)) {
    if (url.pathname === '/l/' || url.pathname === '/l') {
      const target = url.searchParams.get('uddg');
      return target && /^https?:\/\//i.test(target) ? target : undefined;
    }
    return undefined;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}
