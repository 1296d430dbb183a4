import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

// A few common languages only (highlight.js's core plus these, instead of its ~190): the bundle stays small.
for (const [name, language] of Object.entries({
  bash,
  css,
  diff,
  javascript,
  json,
  markdown,
  python,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'console'], { languageName: 'bash' });
hljs.registerAliases(['js', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['html'], { languageName: 'xml' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

/**
 * Highlights the fenced code blocks under `root` that name a known language. highlight.js reads each block's text
 * (already escaped by the Markdown renderer) and escapes it again in its output, so it adds spans, never markup.
 */
export function highlightUnder(root: HTMLElement): void {
  for (const block of root.querySelectorAll<HTMLElement>('pre code[class*="language-"]')) {
    if (block.dataset.highlighted) continue;
    const language = /language-([\w-]+)/.exec(block.className)?.[1];
    if (language && hljs.getLanguage(language)) hljs.highlightElement(block);
  }
}
