import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateBodies, generateHeadings, generateToolsHeadings } from '../test/markdown-fuzz.js';
import { mutants } from '../test/mutate.js';
import { outlineFromMdast, remarkHeadingText } from '../test/remark-reference.js';
import { TRICKY_BODIES } from '../test/tricky-markdown.js';
import { findFrontmatter } from './frontmatter.js';
import { headingText } from './inline-text.js';
import { outlineFromLines } from './line-outline.js';
import { outlineFromMicromark } from './markdown.js';
import { findToolsSection, mayHaveToolsSection } from './outline.js';
import { createSource } from './source.js';

/**
 * These tests parse thousands of generated documents with micromark and remark: their time budget grows with the
 * number generated (about 25 ms each, allowing for a loaded two-core machine), never a fixed 20 s.
 */
const budgetFor = (documents: number) => 20_000 + documents * 25;

const front = '---\nname: x\ndescription: y\n---\n';

/** Both readers over one file: the line reader's outline (or `undefined`) and micromark's. */
function outlines(text: string) {
  const source = createSource(text);
  const range = findFrontmatter(source.text);
  const bodyStart = range.state === 'ok' ? range.bodyStart : 0;
  return {
    source,
    bodyStart,
    lines: outlineFromLines(source, bodyStart, headingText),
    micromark: outlineFromMicromark(source, bodyStart, headingText),
  };
}

/**
 * The line reader's outline, when it gives one, is micromark's (what the parser read before), or — where micromark's
 * outline strays from the full remark tree on generated input (a heading that is a reference link to a definition
 * elsewhere in the body, an unclosed fence at the end of a CRLF body) — remark's. Returns whether it gave one, and
 * whether it differed from micromark's.
 */
function expectSameOutline(text: string, label: string): { read: boolean; fixed: boolean } {
  const { source, bodyStart, lines, micromark } = outlines(text);
  if (!lines) return { read: false, fixed: false };
  if (isDeepStrictEqual(lines, micromark)) return { read: true, fixed: false };
  const tree = outlineFromMdast(source).filter((node) => node.start >= bodyStart);
  expect(micromark, `${label}: micromark and remark agree here, so the line reader must too`).not.toEqual(
    tree,
  );
  expect(lines, label).toEqual(tree);
  return { read: true, fixed: true };
}

function skillFiles(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const url of [
    new URL('../../../skills', import.meta.url),
    new URL('../test/fixtures', import.meta.url),
  ]) {
    const root = fileURLToPath(url);
    for (const name of readdirSync(root).sort()) {
      const file = join(root, name, 'SKILL.md');
      if (existsSync(file)) out.push([name, readFileSync(file, 'utf8')]);
    }
  }
  return out;
}

describe('outlineFromLines', () => {
  it.each(TRICKY_BODIES.map((t) => [JSON.stringify(t), t]))(
    'gives micromark’s outline or gives up: %s',
    (_, body) => {
      const { lines, micromark } = outlines(front + body);
      if (lines) expect(lines).toEqual(micromark);
    },
  );

  it('gives micromark’s outline (or remark’s) or gives up on 4,000 generated bodies, and reads most of them itself', {
    timeout: budgetFor(4000),
  }, () => {
    let read = 0;
    let fixed = 0;
    for (const body of generateBodies(4000, 1)) {
      const outcome = expectSameOutline(front + body, JSON.stringify(body));
      if (outcome.read) read++;
      if (outcome.fixed) fixed++;
    }
    expect(read).toBeGreaterThan(1000);
    // Rare: the generator seldom builds what micromark's outline gets wrong.
    expect(fixed).toBeLessThan(10);
  });

  it('reads the bundled skills and the fixtures itself (what tool skills are made of), as micromark does', () => {
    const unread: string[] = [];
    for (const [name, text] of skillFiles()) {
      const { lines, micromark } = outlines(text);
      if (!lines) unread.push(name);
      else expect(lines, name).toEqual(micromark);
    }
    // The fixture made of setext headings is the only file it leaves to micromark.
    expect(unread).toEqual(['too-many-setext-headings']);
  });

  it('gives micromark’s outline or gives up on 600 mutants of them', { timeout: budgetFor(600) }, () => {
    const sources = skillFiles().map(([name, text]) => ({ name, text }));
    for (const mutant of mutants(sources, 600, 3)) expectSameOutline(mutant.text, mutant.label);
  });
});

describe('mayHaveToolsSection', () => {
  it('never says no to a body whose outline has a Tools section', { timeout: budgetFor(4000) }, () => {
    const bodies = [...TRICKY_BODIES, ...generateBodies(4000, 2)];
    let no = 0;
    for (const body of bodies) {
      const { source, bodyStart, micromark } = outlines(front + body);
      if (mayHaveToolsSection(source.text, bodyStart)) continue;
      no++;
      expect(findToolsSection(source, micromark, bodyStart), JSON.stringify(body)).toBeUndefined();
    }
    expect(no).toBeGreaterThan(500);
  });

  it('says no to headings that only mention tools', () => {
    const body =
      '# Guide\n\n## Server Tools (Quick Reference)\n\nText about tools.\n\n### Tools\n\nTools and more\n---\n';
    expect(mayHaveToolsSection(front + body, front.length)).toBe(false);
    expect(mayHaveToolsSection(`${front}## Tools #\n`, front.length)).toBe(true);
    expect(mayHaveToolsSection(`${front}## *Tools*\n`, front.length)).toBe(true);
    expect(mayHaveToolsSection(`${front}tool  \ns\n---\n`, front.length)).toBe(true);
  });

  it('says no to headings with markup that cannot spell tools, yes to those that might', () => {
    const may = (heading: string) => mayHaveToolsSection(`${front}${heading}\n`, front.length);
    expect(may('## Example: Using with_server.py')).toBe(false);
    expect(may('## Design & Style Guidelines')).toBe(false);
    expect(may('## `read_file` and *friends*')).toBe(false);
    expect(may('## T&#111;ols')).toBe(true);
    expect(may('## T&#x6F;ols')).toBe(true);
    expect(may('## *T*ools')).toBe(true);
    expect(may('## [Tools](https://example.com)')).toBe(true);
    expect(may('**Tool**s\n---')).toBe(true);
  });

  it('never says no to a generated heading with markup whose text is tools', {
    timeout: budgetFor(3000),
  }, () => {
    let no = 0;
    for (const raw of generateHeadings(3000, 7)) {
      const reference = remarkHeadingText(raw);
      if (reference === undefined) continue;
      const heading = raw.includes('\n') ? `${raw}\n---` : `## ${raw}`;
      if (mayHaveToolsSection(`${front}${heading}\n`, front.length)) continue;
      no++;
      expect(reference.trim().toLowerCase(), JSON.stringify(raw)).not.toBe('tools');
    }
    expect(no).toBeGreaterThan(300);
  });

  it('says yes to every generated heading that spells tools through markup', {
    timeout: budgetFor(2000 * 2),
  }, () => {
    const isTools = (text: string | undefined) => text?.trim().toLowerCase() === 'tools';
    let atx = 0;
    let setext = 0;
    for (const raw of generateToolsHeadings(2000, 8)) {
      if (isTools(remarkHeadingText(raw, 'atx'))) {
        atx++;
        expect(mayHaveToolsSection(`${front}## ${raw}\n`, front.length), JSON.stringify(raw)).toBe(true);
      }
      if (isTools(remarkHeadingText(raw, 'setext'))) {
        setext++;
        expect(mayHaveToolsSection(`${front}${raw}\n---\n`, front.length), JSON.stringify(raw)).toBe(true);
      }
    }
    expect(atx).toBeGreaterThan(1000);
    expect(setext).toBeGreaterThan(700);
  });
});

describe('headingText', () => {
  it('gives the text remark’s tree gives, for 3,000 generated headings with markup', () => {
    let compared = 0;
    for (const raw of generateHeadings(3000, 5)) {
      const reference = remarkHeadingText(raw);
      // Content no heading can have (a line that starts another block) is never passed in.
      if (reference === undefined) continue;
      compared++;
      expect(headingText(raw), JSON.stringify(raw)).toBe(reference);
    }
    expect(compared).toBeGreaterThan(2500);
  });
});
