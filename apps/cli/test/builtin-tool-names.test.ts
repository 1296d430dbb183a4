import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (scale) #4: a skill tool named like one of birdie's builtins (`load_skill`, `find_tools`)
// replaced or disabled the builtin in the agent, ran in `birdie tool` instead, and `skills check` said nothing.
// The builtin keeps its name: the skill's tool is refused at load with a diagnostic, for every command alike.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const notes = (tool: string) =>
  `---\nname: notes\ndescription: Note-taking tools.\n---\n\n## Tools\n\n### ${tool}\ndescription: Load a saved note by name.\nentrypoint: bash:echo NOTE {name}\nschema:\n  type: object\n  properties:\n    name: {type: string}\n  required: [name]\n`;

async function write(name: string, text: string): Promise<void> {
  const dir = join(box.cwd, 'skills', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), text);
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd, timeoutMs: 60_000 });

describe('a skill tool named like a birdie builtin (report scale #4)', { timeout: 120_000 }, () => {
  it('load_skill stays the builtin: the skill tool is refused and reported by skills check', async () => {
    await write('notes', notes('load_skill'));
    await write('guide', '---\nname: guide\ndescription: Our release guide.\n---\nRELEASE GUIDE BODY\n');
    const check = await cli(['skills', 'check', '--skills-dir', 'skills']);
    expect(check.stdout + check.stderr).toMatch(
      /notes\/SKILL\.md:8:1 .*Tool `load_skill` of skill `notes` is refused: `load_skill` is a builtin tool, which keeps its name/,
    );
    const script = join(box.cwd, 'script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [{ tool_calls: [{ name: 'load_skill', args: { name: 'guide' } }] }, { text: 'done' }],
      }),
    );
    const run = await cli(['run', '--skills-dir', 'skills', 'how do we release?'], {
      LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'scripted', script }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain('NOTE guide');
    expect(run.stdout + run.stderr).toContain('RELEASE GUIDE BODY');
  });

  it('find_tools: `birdie tool` does not run the skill tool the agent never would', async () => {
    await write('notes', notes('find_tools'));
    const check = await cli(['skills', 'check', '--skills-dir', 'skills']);
    expect(check.stdout + check.stderr).toMatch(/Tool `find_tools` of skill `notes` is refused/);
    const tool = await cli(['tool', 'find_tools', '--skills-dir', 'skills', '--args', '{"name":"x"}']);
    expect(tool.stdout).not.toContain('NOTE x');
    expect(tool.code).not.toBe(0);
  });
});
