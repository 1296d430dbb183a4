import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Issue 30, defect 9: `birdie skills check` reports everything it can about a file, warns about what other Agent
// Skills clients refuse, has --strict for authors who publish, and never drops prose under `## Tools` silently.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function skill(name: string, text: string, file = 'SKILL.md'): Promise<string> {
  const dir = join(box.cwd, 'skills', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, file), text);
  return dir;
}

const check = (...args: string[]) => runCli(['skills', 'check', ...args], { env: box.env, cwd: box.cwd });

describe('birdie skills check (issue 30, defect 9)', () => {
  it('a YAML error does not hide the later problems of the file, and says to quote the value', async () => {
    await skill(
      'later',
      '---\nname: later\ndescription: Use when: the user asks\nversion: [1\nhomepage: https://example.com\nenabled_by_default: maybe\n---\n\nBody.\n',
    );
    const result = await check('skills');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /later\/SKILL\.md:3:\d+ {2}error {2}YAML: .*quote the value.* {2}skill-parser:yaml-syntax/,
    );
    // Past the broken values: the unknown key and the wrong type further down are reported too.
    expect(result.stdout).toMatch(/later\/SKILL\.md:5:1 {2}info {2}Unknown frontmatter key `homepage`/);
    expect(result.stdout).toMatch(
      /later\/SKILL\.md:6:\d+ {2}error {2}`enabled_by_default`: .* {2}skill-parser:invalid-type/,
    );
    // A key whose value did not parse is not "missing".
    expect(result.stdout).not.toContain('missing-description');
  });

  it('warns about a byte order mark and SKILL.MD, and notes flow-style YAML, which other clients refuse', async () => {
    await skill('bom', '\uFEFF---\nname: bom\ndescription: Has a byte order mark\n---\n\nBody.\n');
    await skill('upper', '---\nname: upper\ndescription: Upper-case file name\n---\n\nBody.\n', 'SKILL.MD');
    await skill(
      'flow',
      '---\nname: flow\ndescription: Flow list\nallowed-tools: [Read, Grep]\n---\n\nBody.\n',
    );
    const result = await check('skills');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(
      /bom\/SKILL\.md:1:1 {2}warning {2}.*byte order mark.* {2}skill-parser:byte-order-mark/,
    );
    expect(result.stdout).toMatch(
      /upper\/SKILL\.MD:1:1 {2}warning {2}.*SKILL\.md.* {2}skill-parser:skill-file-name/,
    );
    // Only the reference validator refuses flow style: an info (bundled skills use it), an error with --strict.
    expect(result.stdout).toMatch(
      /flow\/SKILL\.md:4:16 {2}info {2}.*flow style.* {2}skill-parser:flow-style-yaml/,
    );
  });

  it('--strict makes the standard’s rules errors: the same files and a name, key or length the standard refuses', async () => {
    await skill('bom', '\uFEFF---\nname: bom\ndescription: Has a byte order mark\n---\n\nBody.\n');
    await skill('Named', '---\nname: Named\ndescription: Upper-case name\nversion: 1.0.0\n---\n\nBody.\n');
    await skill('fine', '---\nname: fine\ndescription: Only standard keys\nlicense: MIT\n---\n\nBody.\n');
    const lenient = await check('skills');
    expect(lenient.code, lenient.stdout).toBe(0);
    const strict = await check('--strict', 'skills');
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/bom\/SKILL\.md:1:1 {2}error {2}.* {2}skill-parser:byte-order-mark/);
    expect(strict.stdout).toMatch(/Named\/SKILL\.md:2:7 {2}error {2}.* {2}skill-parser:name-format/);
    // birdie's own keys are not in the standard: other clients refuse them.
    expect(strict.stdout).toMatch(
      /Named\/SKILL\.md:4:1 {2}error {2}.*`version`.* {2}skill-parser:non-standard-key/,
    );
    expect(strict.stdout).not.toMatch(/fine\/SKILL\.md/);
    // One skill of three passes the standard.
    expect(strict.stdout).toMatch(/1 skill/);
  });

  it('prose under `## Tools` before the tool blocks is warned about (the model never reads it)', async () => {
    await skill(
      'prose',
      '---\nname: prose\ndescription: Knowledge about tools\n---\n\nIntro.\n\n## Tools\n\nPrefer ripgrep over grep for speed.\n',
    );
    await skill(
      'intro',
      '---\nname: intro\ndescription: A tool with an intro\nalways_inject: true\n---\n\nBefore.\n\n## Tools\n\nRun these with care.\n\n### ping\ndescription: Ping\nentrypoint: bash:echo pong\n',
    );
    const result = await check('skills');
    expect(result.stdout).toMatch(
      /intro\/SKILL\.md:11:1 {2}warning {2}.*not shown to the model.* {2}skill-parser:tools-section-prose/,
    );
    // No tool blocks: the section is prose the model reads (the parser's tests check the body), no warning.
    expect(result.stdout).not.toMatch(/prose\/SKILL\.md.*tools-section-prose/);
  });
});

describe('retries on a tool that is not http: (issue 30, defect 12)', () => {
  it('is reported at load: only http: tools retry, so a bash: tool’s `retries:` would be ignored silently', async () => {
    await skill(
      'retrying',
      '---\nname: retrying\ndescription: A bash tool that asks for retries\n---\n\n## Tools\n\n### flaky\ndescription: Fails sometimes\nentrypoint: bash:echo ok\nretries: 2\n\n### fetch\ndescription: A GET\nentrypoint: http:get https://example.com/{q}\nretries: 2\nschema:\n  type: object\n  properties:\n    q:\n      type: string\n',
    );
    const result = await check('skills');
    expect(result.stdout).toMatch(
      /retrying\/SKILL\.md:11:1 {2}warning {2}`retries` applies to http: tools, not to a bash: tool; it is ignored {2}skill-parser:tool-key-not-applicable/,
    );
    expect(result.stdout).not.toMatch(/SKILL\.md:16:1 .*retries/);
  });
});
