// The README's example: parse one SKILL.md text, print what came out and the diagnostics.
import { parseSkill } from '@birdie/skill-parser';

const text = `---
name: notes
description: Keep short notes in a file.
tags: [local]
wiki-link: https://example.com
---

## Tools

### add_note
description: Append one line to notes.txt.
entrypoint: bash:echo "{line}" >> notes.txt # kept: part of the command
schema:
  type: object
  properties:
    line: {type: string}
  required: [line]

### count_notes
entrypoint: bash:wc -l notes.txt
`;

const { skill, messages } = parseSkill(text, { path: '/home/me/skills/notes/SKILL.md' });
console.log(skill.kind, skill.body, skill.tools[0]);
for (const message of messages) console.log(String(message), `[${message.ruleId}]`, message.fatal);
