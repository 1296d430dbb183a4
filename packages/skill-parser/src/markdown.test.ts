import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { outlineFromMdast, remarkYaml } from '../test/remark-reference.js';
import { TRICKY_BODIES as tricky } from '../test/tricky-markdown.js';
import { findFrontmatter } from './frontmatter.js';
import { headingText } from './inline-text.js';
import { outlineFromMicromark } from './markdown.js';
import { createSource } from './source.js';

const front = '---\nname: x\ndescription: y\n---\n';

function fromBoth(text: string) {
  const source = createSource(text);
  const range = findFrontmatter(source.text);
  if (range.state !== 'ok') throw new Error('fixture without frontmatter');
  const tree = outlineFromMdast(source).filter((n) => n.start >= range.bodyStart);
  return { fast: outlineFromMicromark(source, range.bodyStart, headingText), tree };
}

describe('outlineFromMicromark', () => {
  it.each(tricky.map((t) => [JSON.stringify(t), t]))('agrees with the remark tree: %s', (_, body) => {
    const { fast, tree } = fromBoth(front + body);
    expect(fast).toEqual(tree);
  });

  it('agrees with the remark tree on every fixture', () => {
    const root = fileURLToPath(new URL('../test/fixtures', import.meta.url));
    for (const name of readdirSync(root).filter((n) => n !== 'agents')) {
      const text = readFileSync(`${root}/${name}/SKILL.md`, 'utf8');
      if (findFrontmatter(text).state !== 'ok') continue;
      const { fast, tree } = fromBoth(text);
      expect(fast, name).toEqual(tree);
    }
  });
});

describe('findFrontmatter', () => {
  const inputs = [
    '---\na: 1\n---\nbody\n',
    '---  \na: 1\n---\t\nbody',
    '---\n---\n',
    '---\na: 1\n',
    ' ---\na: 1\n---\n',
    '---\r\na: 1\r\n---\r\nbody\r\n',
    '----\na: 1\n---\n',
    '---\na: 1\n---',
    '---x\na: 1\n---\n',
    '---\na: 1\n ---\n---\n',
    '---\na: |\n  ---\n---\n',
    // A lone CR ends a line for remark-frontmatter too.
    '---\ra: 1\r---\rbody',
    '---\r\u0000\na: 1\n---\n',
    '---\na: 1\n---\rbody\n',
    '---\na: 1\u2028---\n',
  ];

  it.each(inputs.map((t) => [JSON.stringify(t), t]))(
    'finds the frontmatter remark-frontmatter finds: %s',
    (_, text) => {
      const range = findFrontmatter(text);
      const yaml = remarkYaml(text);
      if (!yaml) {
        expect(range.state).not.toBe('ok');
        return;
      }
      expect(range.state).toBe('ok');
      if (range.state !== 'ok') return;
      // (The tree's value has NUL as U+FFFD; the parser reads the YAML from the source, where `yaml` refuses a NUL.)
      const value = text.slice(range.valueStart, range.valueEnd).replace(/(?:\r\n?|\n)$/, '');
      expect(value.replaceAll('\0', '\uFFFD')).toBe(yaml.value);
    },
  );
});
