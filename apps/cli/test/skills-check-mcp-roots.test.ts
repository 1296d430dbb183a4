import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBirdie } from './helpers/birdie-process.js';
import { FIXTURES, type Sandbox, sandbox } from './helpers/env.js';

// `birdie skills check` starts the MCP servers of skills enabled by default to read their prompts, and gives them the
// working folder as their root (roots/list), as a session in that folder would: a server may offer other prompts
// without it. Nothing tested that the root is the working folder.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** A skills folder whose one skill, enabled by default, is the roots server, which writes its roots to `rootsFile`. */
async function rootsSkill(rootsFile: string): Promise<string> {
  const skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'roots'), { recursive: true });
  const args = [join(FIXTURES, 'mcp', 'roots-server.mjs'), rootsFile];
  await writeFile(
    join(skills, 'roots', 'SKILL.md'),
    `---\nname: roots\ndescription: Reports its MCP roots\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: ${process.execPath}\n  args: ${JSON.stringify(args)}\n---\n`,
  );
  return skills;
}

describe('birdie skills check and MCP roots (compiled CLI)', { timeout: 60_000 }, () => {
  it("gives a skill's MCP server the working folder as its root", async () => {
    const rootsFile = join(box.dir.path, 'roots.json');
    const skills = await rootsSkill(rootsFile);
    const done = await startBirdie(['skills', 'check', '--skills-dir', skills], {
      env: box.env,
      cwd: box.cwd,
    }).exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(JSON.parse(await readFile(rootsFile, 'utf8'))).toEqual([pathToFileURL(box.cwd).href]);
  });

  it('with --cwd, the root is that folder', async () => {
    const rootsFile = join(box.dir.path, 'roots.json');
    const skills = await rootsSkill(rootsFile);
    const other = join(box.dir.path, 'other folder');
    await mkdir(other);
    const done = await startBirdie(['skills', 'check', '--skills-dir', skills, '--cwd', other], {
      env: box.env,
      cwd: box.cwd,
    }).exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(JSON.parse(await readFile(rootsFile, 'utf8'))).toEqual([pathToFileURL(other).href]);
  });
});
