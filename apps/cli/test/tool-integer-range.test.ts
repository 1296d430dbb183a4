import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Stop 69's report: an integer argument beyond ±(2^53 − 1) reached the tool changed, with no word said: JSON's numbers
// are doubles, so `{"n": 9007199254740993}` is read as 9007199254740992 and `12345678901234567890` as
// 12345678901234567000, and `1e300` (an integer to JSON Schema) reached a bash template as `1e+300`. A value the
// tool cannot be given exactly is now refused with why, before anything runs.

let box: Sandbox;
let skills: string;

beforeAll(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'iz'), { recursive: true });
  await writeFile(
    join(skills, 'iz', 'SKILL.md'),
    `---
name: iz
description: integers
---
## Tools

### count
description: counts
entrypoint: bash:echo n={n} list={list}
schema:
  type: object
  properties:
    n: { type: integer }
    list: { type: array, items: { type: integer } }
    ratio: { type: number }
  required: [n]
`,
  );
});
afterAll(async () => {
  await box.cleanup();
});

const run = (args: string) => birdie(['tool', 'count', '--skills-dir', skills, '--args', args], box);

describe('birdie tool: an integer argument beyond the exact range', () => {
  it.each([
    ['{"n": 9007199254740993}', 'n', '9007199254740992'],
    ['{"n": -12345678901234567890}', 'n', '-12345678901234567000'],
    ['{"n": 1e300}', 'n', '1e+300'],
    ['{"n": 1, "list": [1, 9007199254740993]}', 'list/1', '9007199254740992'],
  ])('%s is refused, naming the argument and what it was read as', async (args, at, read) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `- ${at}: ${read} is not an exact integer: beyond ±9007199254740991 a JSON number is rounded when it is read`,
    );
  });

  it('the largest exact integers, and a large number where the schema takes any number, are passed as they are', async () => {
    const edge = await run('{"n": 9007199254740991, "list": [-9007199254740991], "ratio": 1e300}');
    expect(edge.stderr).toBe("");
    expect(edge.code).toBe(0);
    expect(edge.stdout).toBe('n=9007199254740991 list=[-9007199254740991]\n');
  });
});
