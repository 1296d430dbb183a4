// The README's unified example: the parser in a remark-lint pipeline, one report for Markdown style and skill rules.
import { remarkSkill } from '@birdie/skill-parser/unified';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import remarkPresetLintRecommended from 'remark-preset-lint-recommended';
import { unified } from 'unified';
import { VFile } from 'vfile';
import { reporter } from 'vfile-reporter';

const processor = unified()
  .use(remarkParse)
  .use(remarkFrontmatter)
  .use(remarkSkill)
  .use(remarkPresetLintRecommended);

const file = new VFile({
  path: 'skills/notes/SKILL.md',
  value: `---
name: notes
description: Keep short notes in a file.
wiki-link: https://example.com
always_inject: true
---

Notes live in notes.txt, one per line; see [the guide][guide].

## Tools

### add_note
description: Append one line to notes.txt.
entrypoint: bash:echo "{line}" >> notes.txt
schema:
  type: object
  properties:
    line: {type: string}
  required:
    - line

### count_notes
entrypoint: bash:wc -l notes.txt
`,
});

const tree = processor.parse(file);
await processor.run(tree, file);
console.log(reporter(file));
console.log(file.data.skill.body);
console.log(file.data.skill.tools.map((tool) => tool.name));
