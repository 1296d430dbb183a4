import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported: run from the home folder (the usual first terminal), `~/.birdie/agents` and `~/.birdie/skills` are also
// the project's `./.birdie/…`; the folder was kept once, as the project's, and skipped as untrusted, so the agent
// `birdie agents new` had just made (whose "Next:" says `birdie agents list`) was not listed and `--agent` refused it.
// The user's own folders always load, wherever birdie runs.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

// HOME is the working folder; the birdie folder is ~/.birdie, as without BIRDIE_HOME.
const cli = (args: string[]) =>
  birdie(args, {
    env: { ...box.env, BIRDIE_HOME: join(box.cwd, '.birdie'), LLM_VENDOR: 'scripted', LLM_SCRIPT: '' },
    cwd: box.cwd,
    timeoutMs: 60_000,
  });

describe('birdie run from the home folder', { timeout: 90_000 }, () => {
  it("lists and uses the user's own agents and skills, without asking to trust the home folder", async () => {
    expect((await cli(['agents', 'new', 'my-helper'])).code).toBe(0);
    expect((await cli(['skills', 'new', 'my-skill'])).code).toBe(0);
    const agents = await cli(['agents', 'list']);
    expect(agents.code, agents.stderr).toBe(0);
    expect(agents.stdout).toMatch(/my-helper\s.*user/);
    expect(agents.stderr).not.toContain('untrusted');
    const skills = await cli(['skills', 'list']);
    expect(skills.code, skills.stderr).toBe(0);
    expect(skills.stdout).toMatch(/my-skill\s.*user/);
    expect(skills.stderr).not.toContain('untrusted');
    const check = await cli(['agents', 'check']);
    expect(check.stderr).not.toContain('untrusted');
  });
});
