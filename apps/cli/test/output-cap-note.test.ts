import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// The note at the end of cut output tells the model how much it did not see, also past what the runner captures.
const SKILL = `---
name: big
description: prints N bytes
---
## Tools

### big_out
description: print n bytes of 'x' lines
entrypoint: bash:yes abcdefghi | head -c {n}
schema:
  type: object
  properties:
    n: { type: integer }
  required: [n]
`;

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'big'), { recursive: true });
  await writeFile(join(skills, 'big', 'SKILL.md'), SKILL);
});
afterEach(async () => {
  await box.cleanup();
});

const note = async (n: number) => {
  const result = await birdie(
    ['tool', 'big_out', '--skills-dir', skills, '--args', JSON.stringify({ n })],
    box,
  );
  expect(result.code).toBe(0);
  return result.stdout.trimEnd().split('\n').at(-1);
};

describe('the output-cap note', () => {
  it('counts exactly what was captured and cut', async () => {
    expect(await note(100_000)).toBe('[truncated: 68000 more characters]');
  });

  it('counts the output the runner did not capture too', async () => {
    const last = await note(5_000_000);
    const more = Number(/^\[truncated: about (\d+) more characters\]$/.exec(last ?? '')?.[1]);
    // 5,000,000 printed, 32,000 shown; the count may be off by the runner's own note of what it dropped.
    expect(Math.abs(more - 4_968_000)).toBeLessThan(200);
  });
});
