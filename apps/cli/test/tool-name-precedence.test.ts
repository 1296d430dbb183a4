import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report (author persona) #5 and #8: which skill a tool name belongs to when two skills declare it.
// The layers' documented precedence holds (a user's --skills-dir over the bundled folder), a skill that is off by
// default never takes a name from one that is on, `birdie tool NAME` runs the tool a session would get, and
// `skills check DIR` reports a clash between two skills of DIR.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

function toolSkill(name: string, tool: string, echo: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: skill ${name}\n${extra}---\n## Tools\n\n### ${tool}\ndescription: ${tool} from ${name}\nentrypoint: bash:echo "${echo} {path}"\nschema:\n  type: object\n  properties:\n    path: { type: string }\n  required: [path]\n`;
}

async function write(folder: string, name: string, text: string): Promise<string> {
  const dir = join(folder, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), text);
  return join(dir, 'SKILL.md');
}

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd, timeoutMs: 60_000 });

describe('a tool name declared by two skills (report #5)', { timeout: 90_000 }, () => {
  it("a user's --skills-dir tool wins over a disabled bundled skill's: the session and `birdie tool` get the user's", async () => {
    const bundled = box.env.BIRDIE_BUNDLED_SKILLS!;
    await write(bundled, 'filesystem', toolSkill('filesystem', 'read_file', 'BUNDLED read_file'));
    await write(join(box.cwd, 'my'), 'notes', toolSkill('notes', 'read_file', 'MY read_file'));

    const tool = await cli(['tool', 'read_file', '--skills-dir', 'my', '--args', '{"path":"todo.txt"}']);
    expect(tool.stdout).toContain('MY read_file todo.txt');
    expect(tool.stdout + tool.stderr).not.toContain('BUNDLED');

    const script = join(box.cwd, 'script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [{ tool_calls: [{ name: 'read_file', args: { path: 'todo.txt' } }] }, { text: 'done' }],
      }),
    );
    const run = await cli(['run', '--skills-dir', 'my', 'read todo.txt'], {
      LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'scripted', script }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('is not available in this session');
    expect(run.stderr).not.toMatch(/notes\/SKILL\.md:\d+:\d+ .*tool-name-clash/);
    expect(run.stdout + run.stderr).toContain('MY read_file todo.txt');
  });

  it('a skill that is off by default does not take the name from one that is on, whatever the layers', async () => {
    // The user layer (on by default) declares `lookup`; a later --skills-dir skill that is off declares it too.
    await write(join(box.home, 'skills'), 'mine', toolSkill('mine', 'lookup', 'USER lookup'));
    await write(
      join(box.cwd, 'extra'),
      'spare',
      toolSkill('spare', 'lookup', 'SPARE lookup', 'enabled_by_default: false\n'),
    );
    const tool = await cli(['tool', 'lookup', '--skills-dir', 'extra', '--args', '{"path":"x"}']);
    expect(tool.stdout).toContain('USER lookup x');
    const check = await cli(['skills', 'check', '--skills-dir', 'extra']);
    expect(check.stdout).toMatch(
      /extra\/spare\/SKILL\.md:8:1 {2}warning {2}Tool `lookup` of skill `spare` is refused: skill `mine` \(.*mine\/SKILL\.md\) declares it too/,
    );
  });
});

describe('birdie skills check DIR with a tool name two of its skills declare (report #8)', {
  timeout: 60_000,
}, () => {
  it('reports the second declaration at its ### line, naming the first, as the loaded check does', async () => {
    const dup = join(box.cwd, 'dup');
    const alpha = await write(dup, 'alpha', toolSkill('alpha', 'lookup', 'alpha'));
    await write(dup, 'beta', toolSkill('beta', 'lookup', 'beta'));
    const check = await cli(['skills', 'check', 'dup']);
    const line = `dup/beta/SKILL.md:7:1  warning  Tool \`lookup\` of skill \`beta\` is refused: skill \`alpha\` (${alpha}) declares it too`;
    expect(check.stdout).toContain(line);
    expect(check.stdout).toContain('2 skills loaded: 0 errors, 1 warning, 0 info');
    const loaded = await cli(['skills', 'check', '--skills-dir', 'dup']);
    expect(loaded.stdout).toContain(line);
  });
});
