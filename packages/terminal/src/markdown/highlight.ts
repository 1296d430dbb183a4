import type { Element, Root, RootContent } from 'hast';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';
import type { Style } from '../style.js';

type Color = Parameters<Style>[0];

/**
 * The languages answers use most; each brings its own aliases (ts, js, sh, py, yml, html, toml…). Registered by
 * hand rather than lowlight's `common` set so the bundle holds only these.
 */
const lowlight = createLowlight({
  bash,
  c,
  cpp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
});

/** highlight.js scopes (the first class after `hljs-`) and the color each is shown in. */
const COLORS: Record<string, Color> = {
  keyword: 'magenta',
  literal: 'magenta',
  'selector-tag': 'magenta',
  doctag: 'magenta',
  name: 'magenta',
  string: 'green',
  regexp: 'green',
  addition: 'green',
  'selector-attr': 'green',
  number: 'yellow',
  attr: 'yellow',
  attribute: 'yellow',
  variable: 'yellow',
  'template-variable': 'yellow',
  property: 'yellow',
  symbol: 'yellow',
  bullet: 'yellow',
  title: 'blue',
  section: 'blue',
  'selector-id': 'blue',
  'selector-class': 'blue',
  built_in: 'cyan',
  type: 'cyan',
  params: 'reset',
  deletion: 'red',
  comment: 'gray',
  quote: 'gray',
  meta: 'gray',
};

/** Whether `language` (a name or an alias) is one this highlighter knows. */
export function knowsLanguage(language: string): boolean {
  return lowlight.registered(language.toLowerCase());
}

/** Code colored per token for a terminal; the same text, uncolored, for a language it does not know. */
export function highlight(code: string, language: string | null | undefined, style: Style): string {
  if (!language || !knowsLanguage(language)) return code;
  const tree = lowlight.highlight(language.toLowerCase(), code);
  return paint(tree, style, undefined);
}

function paint(node: Root | Element, style: Style, inherited: Color | undefined): string {
  let out = '';
  for (const child of node.children as RootContent[]) {
    if (child.type === 'text')
      out += inherited && inherited !== 'reset' ? colorLines(child.value, inherited, style) : child.value;
    else if (child.type === 'element') out += paint(child, style, colorOf(child) ?? inherited);
  }
  return out;
}

function colorOf(element: Element): Color | undefined {
  const classes = element.properties.className;
  if (!Array.isArray(classes)) return undefined;
  for (const name of classes) {
    const scope = String(name).replace(/^hljs-/, '');
    const color = COLORS[scope] ?? COLORS[scope.split('.')[0]!];
    if (color) return color;
  }
  return undefined;
}

/** Each line colored on its own, so a multi-line token (a comment, a string) never leaks color into what follows. */
function colorLines(text: string, color: Color, style: Style): string {
  return text
    .split('\n')
    .map((line) => (line ? style(color, line) : line))
    .join('\n');
}
