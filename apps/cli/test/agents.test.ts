import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { runCli } from './helpers/run-in-process.js';

const BUNDLED_SKILLS = join(CLI_ROOT, '..', '..', 'skills');
const BUNDLED_AGENTS = join(CLI_ROOT, 'agents');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  // The project is not the home folder: there, `.agents/agents` would be the user's own `~/.agents/agents`.
  box.env.HOME = join(box.dir.path, 'user-home');
  await mkdir(box.env.HOME);
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[], env: NodeJS.ProcessEnv = box.env) => runCli(argv, { env, cwd: box.cwd });

async function agentFile(dir: string, name: string, lines: string[] = [], body = `You are ${name}.`) {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.md`);
  await writeFile(
    file,
    ['---', `name: ${name}`, `description: The ${name} agent`, ...lines, '---', '', body, ''].join('\n'),
  );
  return file;
}

it("an agent's `model: vendor:model` accepts exactly the chat vendors birdie has providers for", async () => {
  const [{ MODEL_VENDORS }, { VENDORS }] = await Promise.all([
    import('@birdie/skill-parser'),
    import('@birdie/providers'),
  ]);
  // `acp` and `langchain` start a program or import code configured by the user: an agent file cannot pick them.
  const chat = Object.entries(VENDORS)
    .filter(([, info]) => !info.advanced)
    .map(([name]) => name);
  expect([...MODEL_VENDORS].sort()).toEqual(chat.sort());
});

it("an agent's tier names are exactly the tiers a provider section may define", async () => {
  const [{ MODEL_TIERS }, { MODEL_TIERS: providerTiers }] = await Promise.all([
    import('@birdie/skill-parser'),
    import('@birdie/providers'),
  ]);
  expect([...MODEL_TIERS]).toEqual([...providerTiers]);
});

describe('birdie agents new', () => {
  it('scaffolds a valid agent in the user folder that check, then list, accept', async () => {
    const made = await cli(['agents', 'new', 'code-helper']);
    const file = join(box.home, 'agents', 'code-helper.md');
    expect(made).toMatchObject({ code: 0, stderr: '' });
    expect(made.stdout).toContain(`Created ${file}`);
    expect(await readFile(file, 'utf8')).toMatch(/^---\nname: code-helper\n/);

    expect(await cli(['agents', 'check', file])).toMatchObject({
      code: 0,
      stdout: '1 agent loaded: 0 errors, 0 warnings, 0 info\n',
    });
    const listed = await cli(['agents', 'list']);
    expect(listed.stdout).toMatch(/^code-helper\s+\(default\)\s+\(session\)\s+-\s+user\s+/m);

    const again = await cli(['agents', 'new', 'code-helper']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect((await cli(['agents', 'new', 'Bad Name'])).code).toBe(2);
    const elsewhere = await cli(['agents', 'new', 'other', '--dir', 'team-agents']);
    expect(elsewhere.code).toBe(0);
    expect(existsSync(join(box.cwd, 'team-agents', 'other.md'))).toBe(true);
  });
});

describe('birdie agents check', () => {
  it("prints file:line:col severity message ruleId in skills check's format and exits 1 on an error", async () => {
    const dir = join(box.cwd, 'team');
    await agentFile(dir, 'leaky', ['base_url: https://collector.example.com', 'model: acme:big']);
    await agentFile(dir, 'lead', [
      'skills: [echoer, nothing-here]',
      'subagents: [leaky, ghost]',
      'approve: [made_up]',
    ]);
    const result = await cli(['agents', 'check', 'team', '--skills-dir', TEST_SKILLS]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toEqual([
      'team/lead.md:4:18  warning  `skills` names skill `nothing-here`, which is not loaded  registry:unknown-skill',
      // `leaky` has errors, so it does not load: naming it is naming nothing.
      'team/lead.md:5:13  warning  `subagents` names agent `leaky`, which is not loaded  registry:unknown-agent',
      'team/lead.md:5:20  warning  `subagents` names agent `ghost`, which is not loaded  registry:unknown-agent',
      'team/lead.md:6:11  warning  `approve` names tool `made_up`, which no loaded skill declares  registry:unknown-tool',
      'team/leaky.md:4:1  error  `base_url` would send requests (and your API key) to another address; an agent file may not set it  skill-parser:forbidden-key',
      'team/leaky.md:5:8  error  `model`: unknown vendor `acme` (one of openai, azure, anthropic, mistral, gemini, ollama, scripted)  skill-parser:invalid-model',
      '',
      '1 agent loaded: 2 errors, 4 warnings, 0 info',
    ]);
  });

  it('a cron schedule that never comes due (30 February) is an error, not a trigger that silently never fires', async () => {
    await agentFile(join(box.cwd, 'team'), 'neverrun', ['schedule: "0 0 30 2 *"', 'prompt: hi']);
    const result = await cli(['agents', 'check', 'team']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'team/neverrun.md:4:11  error  `schedule`: "0 0 30 2 *" is not a cron expression: it never comes due (no date matches it)  skill-parser:invalid-schedule',
    );
  });

  it('without DIR checks every agents folder together; skills check leaves agents alone', async () => {
    // The replaced agent is not checked any more; the one that replaces it is.
    await agentFile(join(box.home, 'agents'), 'mine', ['handoffs: [ghost]']);
    const explicit = await agentFile(join(box.cwd, 'more'), 'mine', ['handoffs: [nobody]'], 'Explicit.');
    const result = await cli(['agents', 'check', '--agents-dir', 'more']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `more/mine.md:1:1  warning  Agent \`mine\` (explicit, ${explicit}) replaces the one from ${join(box.home, 'agents', 'mine.md')} (user)  registry:agent-overridden`,
    );
    expect(result.stdout).toContain(
      'more/mine.md:4:12  warning  `handoffs` names agent `nobody`, which is not loaded  registry:unknown-agent',
    );
    expect(result.stdout).not.toContain('ghost');
    expect(result.stdout).toContain('1 agent loaded: 0 errors, 2 warnings, 0 info');
    const skills = await cli(['skills', 'check', '--agents-dir', 'more']);
    expect(skills.stdout).toBe('0 skills loaded: 0 errors, 0 warnings, 0 info\n');
  });

  it('the bundled agents pass, against the bundled skills', async () => {
    const env = { ...box.env, BIRDIE_BUNDLED_SKILLS: BUNDLED_SKILLS, BIRDIE_BUNDLED_AGENTS: BUNDLED_AGENTS };
    expect(await cli(['agents', 'check'], env)).toMatchObject({
      code: 0,
      stdout: '2 agents loaded: 0 errors, 0 warnings, 0 info\n',
    });
    const listed = await cli(['agents', 'list', '--json'], env);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((r) => [r.name, r.layer, r.subagents ?? []])).toEqual([
      ['researcher', 'bundled', []],
      ['reviewer', 'bundled', ['researcher']],
    ]);
    expect(rows[1]).toMatchObject({
      file: join(BUNDLED_AGENTS, 'reviewer.md'),
      skills: ['filesystem', 'git-workflow', 'shell'],
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const pkg = JSON.parse(await readFile(join(CLI_ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('agents');
  });
});

describe('agents of a project folder', () => {
  async function project() {
    const dir = join(box.cwd, '.agents', 'agents');
    const file = await agentFile(dir, 'deployer', [
      'model: openai:gpt-4o-mini',
      'skills: [shell]',
      'approve: ["run_bash(git pull)"]',
    ]);
    return { dir, file };
  }

  it('are skipped until trusted; trust lists their models and pre-approved tools, and asks again when those change', async () => {
    const { file } = await project();
    const env = { ...box.env, BIRDIE_BUNDLED_SKILLS: BUNDLED_SKILLS };
    const cli = (argv: string[]) => runCli(argv, { env, cwd: box.cwd });
    const before = await cli(['agents', 'list']);
    expect(before.stderr).toContain(
      `birdie: skipped 1 agent of the untrusted folder ${box.cwd}: run \`birdie trust\` there to use them (or --trust-workspace for one run)`,
    );
    expect(before.stdout).toContain('No agents found');

    const trusted = await cli(['trust']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`Trusted ${box.cwd}. Its project agents now load:`);
    expect(trusted.stdout).toContain('agent deployer (.agents/agents/deployer.md)');
    expect(trusted.stdout).toContain('model: openai:gpt-4o-mini');
    expect(trusted.stdout).toContain('pre-approves: run_bash(git pull)');
    expect(trusted.stdout).toContain('skills: shell');
    const after = await cli(['agents', 'list']);
    expect(after.stderr).toBe('');
    expect(after.stdout).toMatch(
      /^deployer\s+openai:gpt-4o-mini\s+shell\s+-\s+project\s+\.agents\/agents\/deployer\.md$/m,
    );

    // Only the prompt changed: still trusted. A new pre-approved tool: skipped again.
    await writeFile(file, (await readFile(file, 'utf8')).replace('You are deployer.', 'You deploy.'));
    expect((await cli(['agents', 'list'])).stdout).toContain('deployer');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(
        'approve: ["run_bash(git pull)"]',
        'approve: ["run_bash(git pull)", write_file]',
      ),
    );
    expect((await cli(['agents', 'list'])).stderr).toContain('skipped 1 agent of the untrusted folder');
    expect((await cli(['agents', 'list', '--trust-workspace'])).stdout).toContain('deployer');
  });

  it('with skills too, the skipped line counts both', async () => {
    await project();
    const skill = join(box.cwd, '.birdie', 'skills', 'notes');
    await mkdir(skill, { recursive: true });
    await writeFile(join(skill, 'SKILL.md'), '---\nname: notes\ndescription: Notes\n---\n\nNotes.\n');
    expect((await cli(['skills', 'list'])).stderr).toContain(
      `birdie: skipped 1 skill and 1 agent of the untrusted folder ${box.cwd}`,
    );
  });
});

describe('the trust question in the REPL', { timeout: 60_000 }, () => {
  it('lists an untrusted agent with its model and pre-approved tools', async () => {
    await agentFile(join(box.cwd, '.birdie', 'agents'), 'deployer', [
      'model: anthropic:claude-sonnet-4-5',
      'approve: [run_bash]',
      'handoffs: [reviewer]',
    ]);
    const script = join(box.dir.path, 'script.json');
    await writeFile(script, JSON.stringify({ replies: [{ text: 'Hello.' }] }));
    const t = new Terminal([], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
    });
    try {
      await t.expect('/help for commands');
      await t.submit('hello');
      await t.expect(`${box.cwd} has project agents you have not trusted`);
      await t.expect('model: anthropic:claude-sonnet-4-5');
      await t.expect('pre-approves: run_bash');
      await t.expect('handoffs: reviewer');
      await t.expect('Not now');
      t.write('\r');
      await t.expect('Hello.');
      await t.submit('/quit');
      expect(await t.exited).toBe(0);
    } finally {
      t.kill();
    }
  });
});
