import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// The bundled Shell skill: `run_bash` runs raw commands, which a bare tool name never pre-approves.
const SHELL = join(CLI_ROOT, '..', '..', 'skills', 'shell');

let box: Sandbox;
let agents: string;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  agents = join(box.dir.path, 'agents');
  skills = join(box.dir.path, 'skills');
  await mkdir(agents);
  await cp(SHELL, join(skills, 'shell'), { recursive: true });
  // On by default here, as a user who relies on it would set it.
  const skill = join(skills, 'shell', 'SKILL.md');
  await writeFile(
    skill,
    (await readFile(skill, 'utf8')).replace('enabled_by_default: false', 'enabled_by_default: true'),
  );
  // A repository, so `git status` has something to say.
  execFileSync('git', ['init', '-q'], { cwd: box.cwd });
});
afterEach(async () => {
  await box.cleanup();
});

async function agent(name: string, approve: string): Promise<string> {
  const file = join(agents, `${name}.md`);
  await writeFile(
    file,
    `---\nname: ${name}\ndescription: Runs git.\nevery: 1h\nprompt: Check the repository.\nskills: [shell]\napprove: ${approve}\n---\nYou check repositories.\n`,
  );
  return file;
}

/** `birdie start --once NAME` with a scripted model making `calls`, then answering. */
async function once(name: string, commands: string[]) {
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        { tool_calls: commands.map((command) => ({ name: 'run_bash', args: { command } })) },
        { text: 'Checked.' },
      ],
    }),
  );
  return birdie(['start', '--agents-dir', agents, '--skills-dir', skills, '--json', '--once', name], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
  });
}

async function lastRun() {
  const store = openStore({ home: box.home });
  try {
    return (await store.runs.list({ userId: 'tester', limit: 10 }))[0];
  } finally {
    await store.close();
  }
}

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd });

describe('an agent file that approves run_bash', { timeout: 90_000 }, () => {
  it('`approve: [run_bash]` never applies: agents check warns, the refusal names the fix, start --help says so', async () => {
    await agent('gitter', '[run_bash]');
    const check = await cli(['agents', 'check', '--agents-dir', agents, '--skills-dir', skills]);
    expect(check.stdout + check.stderr).toMatch(
      /gitter\.md:\d+:\d+ +warning +`approve` names `run_bash`, which runs raw shell commands: a tool name never pre-approves one; write a command pattern such as `run_bash\(git status\)`.*approve-never-applies/,
    );
    expect(check.stdout + check.stderr).toMatch(/1 warning/);

    const result = await once('gitter', ['git status']);
    expect(result.code).toBe(1);
    const run = await lastRun();
    expect(run).toMatchObject({ status: 'rejected', trigger: 'once' });
    // Not "add the tool to the agent's approve list": it is there already, and that cannot work.
    expect(run!.error).not.toContain('add the tool to');
    expect(run!.error).toContain(
      '`git status` is a raw shell command; the `approve` entry `run_bash` never pre-approves one: add a command pattern such as `run_bash(git status *)`',
    );

    const help = await cli(['start', '--help']);
    expect(help.stdout).toContain('command pattern');
    expect(help.stdout).not.toContain('`approve` list names the tool, else');
  });

  it('`approve: ["run_bash(git status)"]` runs `git status` and refuses `git status; touch F`, naming the rule', async () => {
    await agent('gitter', '["run_bash(git status)"]');
    const check = await cli(['agents', 'check', '--agents-dir', agents, '--skills-dir', skills]);
    expect(check.stdout).toContain('1 agent loaded: 0 errors, 0 warnings');

    const result = await once('gitter', ['git status', 'git status; touch F']);
    expect(result.code).toBe(1);
    // The run's log line says which rule let `git status` run, from which file.
    const end = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; rules?: unknown })
      .find((line) => line.event === 'run-end');
    expect(end?.rules).toEqual([
      {
        tool: 'run_bash',
        effect: 'allow',
        pattern: 'run_bash(git status)',
        source: { kind: 'agent', name: join(agents, 'gitter.md') },
      },
    ]);
    expect(existsSync(join(box.cwd, 'F'))).toBe(false);
    const run = await lastRun();
    expect(run).toMatchObject({ status: 'rejected' });
    expect(run!.error).toContain(
      `the allow rule \`run_bash(git status)\` (agent ${join(agents, 'gitter.md')}) does not match \`touch F\``,
    );
    const shown = await cli(['logs', 'show', String(run!.id)]);
    // The first call ran: git's own words are in the log.
    expect(shown.stdout).toMatch(/No commits yet|On branch/);
  });
});
