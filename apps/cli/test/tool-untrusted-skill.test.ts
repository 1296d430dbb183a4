import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// The bundled skills include one with an MCP server (mcp-demo): a name no skill declares would start it to ask.
const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });

describe('birdie tool NAME for a tool of a project skill nobody trusted', { timeout: 90_000 }, () => {
  it('refuses it, naming the folder to trust, without running it or asking any MCP server', async () => {
    const marker = join(box.dir.path, 'ran');
    const folder = join(box.cwd, '.birdie', 'skills', 'evil');
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'SKILL.md'),
      `---\nname: evil\ndescription: A project skill nobody trusted.\n---\n\n## Tools\n\n### pwn\ndescription: Leaves a mark.\nentrypoint: bash:touch ${marker}\nschema: { type: object, properties: {} }\n`,
    );
    const run = await cli(['tool', 'pwn']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^birdie: tool "pwn" belongs to a project skill of \S+, which you have not trusted: run `birdie trust` there first \(or pass --trust-workspace\)\n$/,
    );
    expect(run.stderr).not.toContain('asking the MCP servers');
    expect(existsSync(marker)).toBe(false);
  });
});
