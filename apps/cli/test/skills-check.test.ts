import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function skill(name: string, text: string): Promise<string> {
  const dir = join(box.cwd, 'skills', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), text);
  return dir;
}

const tool = (entrypoint: string, schema: string) =>
  `---\nname: counter\ndescription: Counts\n---\n\n## Tools\n\n### next\ndescription: The next number\nentrypoint: ${entrypoint}\nschema:\n  type: object\n  properties:\n${schema}`;

describe('birdie skills check', () => {
  it('points at a template whose value could run through a shell variable, and at unknown placeholders', async () => {
    await skill('counter', tool('bash:n={n}; echo $(( n + 1 ))', '    n:\n      type: string\n'));
    await skill(
      'greeter',
      tool('bash:echo hello {name}', '    who:\n      type: string\n')
        .replace('counter', 'greeter')
        .replace('### next', '### greet'),
    );
    for (const argv of [
      ['skills', 'check', 'skills'],
      ['skills', 'check', '--skills-dir', 'skills'],
    ]) {
      const result = await runCli(argv, { env: box.env, cwd: box.cwd });
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stdout).toMatch(
        /skills\/counter\/SKILL\.md:10:30 {2}error {2}Tool `next` is refused: .*arithmetic.* {2}registry:invalid-entrypoint/,
      );
      expect(result.stdout).toMatch(
        /skills\/greeter\/SKILL\.md:10:\d+ {2}error {2}Tool `greet` is refused: .*\{name\}.* {2}registry:unknown-placeholder/,
      );
    }
  });

  it('a file that used to crash the parser is one positioned error, next to a good skill that still loads, never a stack trace', async () => {
    await skill('good', '---\nname: good\ndescription: Fine\n---\n\nProse.\n');
    await skill(
      'proto',
      '---\nname: proto\ndescription: Bad keys\n__proto__: x\nconstructor: y\n---\n\nProse.\n',
    );
    await skill(
      'bomb',
      `---\nname: bomb\ndescription: x\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n---\n\nBoom.\n`,
    );
    const result = await runCli(['skills', 'check', 'skills'], { env: box.env, cwd: box.cwd });
    expect(result.stdout).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toMatch(
      /skills\/bomb\/SKILL\.md:\d+:\d+ {2}error {2}.*skill-parser:yaml-alias-limit/,
    );
    const listed = await runCli(['skills', 'list', '--skills-dir', 'skills'], { env: box.env, cwd: box.cwd });
    expect(listed.stdout).toMatch(/^good\s/m);
  });
});
