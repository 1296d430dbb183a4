import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findFrontmatter } from './frontmatter.js';
import { outlineFromMicromark } from './markdown.js';
import { headingText, outlineFromMdast, remarkYaml } from './outline.js';
import { createSource } from './source.js';

const front = '---\nname: x\ndescription: y\n---\n';

/** Markdown where a line-based reader would go wrong; the outline must agree with the full remark tree. */
const tricky = [
  '## Tools\n\n### a\nentrypoint: bash:true\n',
  '```\n## Tools\n```\n\n## Tools\n',
  '~~~~md\n```\n## Tools\n```\n~~~~\n',
  '  ```yaml\n  type: object\n    properties: {}\n  ```\n',
  '```json\n{"type": "object"}\n',
  '<!--\n## Tools\n-->\n\n## Tools\n',
  '<div>\n## Tools\n</div>\n',
  '> ## Tools\n> ### a\n',
  '- item\n  ## Tools\n\n## Tools\n',
  '1. one\n\n   ```yaml\n   a: 1\n   ```\n',
  'Tools\n-----\n\n### a\n',
  'Some\nTools\n---\n',
  'Tools\n=====\n',
  '## **Tools**\n### `read_file`\n',
  '## T&#111;ols ##\n### a\\_b\n',
  '   ## Tools\n    ## not a heading\n',
  '## Tools\r\n\r\n### a\r\n```json\r\n{"type": "object"}\r\n```\r\n',
  '#### Tools\n## Tools #\n### \n',
  '* * *\n## Tools\n---\n### x\n',
  '[ref]: https://example.com\n## Tools\n',
  '## Tools\n\n    ### indented code\n\n### real\n',
  '## Tools\n### _private_\n### snake_case_name\n### a*b*\n',
  '- a\nlazy\n## Tools\n',
  '<!--\nnote\n## Tools\nstill a comment -->\n## Tools\n### a\n',
  '<div>\ntext\n## Tools\n\n## Tools\n',
  '[a\nb]: /u\nTools\n-----\n',
  'Intro line  \nTools\n---\n',
  '  Tools  \n  ---\n',
  '```yaml\ntype: object\nproperties: {}',
  '- item\n  ```\n  code\nend\n## Tools\n',
  '> quote\ncontinued lazily\n## Tools\n',
  '1. step\n   detail\n\n   ## Tools\n\n## Tools\r\nText\r\n',
  'Paragraph\n```\nfence interrupts\n```\nTools\n=====\n',
  '    code\n    more code\nTools\n---\n',
  '- item\n  text\n  more\nlazy\n## Tools\n',
  'Para one\nstill para\nTools\n---\n',
  '```\nfoo\nbar\n```\nTools\n-----\n',
  '<!--\na\nb -->\nc\nd\n## Tools\n',
  '\tfoo\n\tbar\n  baz\n## Tools\n',
  '> q\nlazy one\nlazy two\n---\n## Tools\n',
  '## Tools\n### t\ndescription: a\n  b\nc\n```json\n{}\n```\n### u\n',
  '    code\n      deeper\n    back\nTools\n---\n',
  '- a\n  b\n    c\nd\n## Tools\n',
  '1. x\n\n       code in item\n         more\n   para\n## Tools\n',
  '  a\n    b\n  ```\n  c\n  ```\nTools\n---\n',
  'a\n\tb\n    c\nTools\n---\n',
  '> a\n  b\nc\n    d\n## Tools\n',
  '{"a": 1}\n"quoted"\n(x) y\nTools\n---\n```json\n{"type":"object"}\n```\n',
  '<!-- c\n{ still comment }\n"x" -->\n## Tools\n',
  '```\n{ "a": "```" }\n```\n## Tools\n',
  '## Tools\r\n### t\r\n```yaml\r\ntype: object\r\nproperties:\r\n  a: {type: string}\r\n```\r\n',
];

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
      expect(text.slice(range.valueStart, range.valueEnd).replace(/\r?\n$/, '')).toBe(yaml.value);
    },
  );
});
