import { useEffect, useMemo, useRef } from 'preact/hooks';
import { highlightUnder } from './highlight.js';
import { renderMarkdown } from './markdown.js';

/** Untrusted Markdown, rendered safely (see markdown.ts); code is highlighted once the text stops changing. */
export function MarkdownView({ text, final }: { text: string; final: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (final && ref.current) highlightUnder(ref.current);
  }, [html, final]);
  return <div class="md" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
}
