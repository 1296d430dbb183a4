import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Scale report 9: `skills check --strict` checked the user's folders one by one, so a tool two layers declare was
// said to be won by the lower layer (the opposite of what loads and of plain `skills check`), and a skill a higher
// layer overrides was not reported at all.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

async function deploySkill(root: string, name: string): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(
    join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: deploy skill ${name}\n---\n\n## Tools\n\n### deploy_app\ndescription: Deploy the app (${name}).\nentrypoint: bash:echo ${name} {target}\nschema:\n  type: object\n  properties:\n    target:\n      type: string\n  required:\n    - target\n`,
  );
}

describe('skills check --strict and the layers', { timeout: 60_000 }, () => {
  it('names the same winner of a tool-name clash as plain skills check and as what runs', async () => {
    await deploySkill(join(box.home, 'skills'), 'from-user');
    await deploySkill(join(box.cwd, 'x'), 'from-explicit');
    const plain = await cli(['skills', 'check', '--skills-dir', 'x']);
    const strict = await cli(['skills', 'check', '--strict', '--skills-dir', 'x']);
    const clash = (out: string) => out.split('\n').filter((l) => l.includes('tool-name-clash'));
    expect(clash(plain.stdout)).toHaveLength(1);
    expect(clash(plain.stdout)[0]).toContain('Tool `deploy_app` of skill `from-user` is refused');
    expect(clash(strict.stdout)).toEqual(clash(plain.stdout));
    const ran = await cli(['tool', 'deploy_app', '--args', '{"target":"t"}', '--skills-dir', 'x']);
    expect(ran.stdout).toBe('from-explicit t\n');
  });

  it('reports a skill a higher layer overrides, as plain skills check does', async () => {
    await deploySkill(join(box.home, 'skills'), 'deployer');
    await deploySkill(join(box.cwd, 'x'), 'deployer');
    const plain = await cli(['skills', 'check', '--skills-dir', 'x']);
    const strict = await cli(['skills', 'check', '--strict', '--skills-dir', 'x']);
    const overridden = (out: string) => out.split('\n').filter((l) => l.includes('skill-overridden'));
    expect(overridden(plain.stdout)).toHaveLength(1);
    expect(overridden(strict.stdout)).toEqual(overridden(plain.stdout));
  });
});
