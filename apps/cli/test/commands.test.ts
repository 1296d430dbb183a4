import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[], env: NodeJS.ProcessEnv = {}, stdin?: string) =>
  runCli(argv, { env: { ...box.env, ...env }, cwd: box.cwd, ...(stdin !== undefined ? { stdin } : {}) });
const withSkills = ['--skills-dir', TEST_SKILLS];

describe('birdie --version / --help', () => {
  it('prints the version and the command list', async () => {
    const version = await cli(['--version']);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await cli(['--help']);
    for (const name of [
      'birdie run',
      'birdie skills check',
      'birdie tool',
      'birdie sessions list',
      'birdie logs',
    ]) {
      expect(help.stdout).toContain(name);
    }
    expect((await cli(['logs', '--help'])).stdout).toContain('Usage: birdie logs');
  });

  // Reported: `birdie -p "…"` (one turn, as other agent CLIs spell it) works but neither help named it.
  it('names -p/--print in the main help and run --help, and the spelling it shows runs a turn', async () => {
    const main = (await cli(['--help'])).stdout;
    expect(main).toMatch(/-p, --print PROMPT\s+one turn without a terminal, as `birdie run "PROMPT"`/);
    expect((await cli(['run', '--help'])).stdout.replace(/\s+/g, ' ')).toContain(
      '`birdie -p "<prompt>" [options]` is the same command',
    );
    const turn = await cli(['-p', 'hello', '--skills-dir', TEST_SKILLS], scripted('repl.json'));
    expect(turn.code, turn.stderr).toBe(0);
    expect(turn.stdout.length).toBeGreaterThan(0);
  });

  // Reported by an operator: the help named two endpoints open without a token; /v1/ready is the third.
  it('serve --help names every endpoint that needs no token', async () => {
    const help = (await cli(['serve', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('Every request but /v1/health, /v1/ready and /v1/openapi.json needs');
  });

  it('a group (skills, agents, sessions) lists every subcommand for --help and help GROUP', async () => {
    for (const [group, subs] of [
      ['skills', ['list', 'check', 'new']],
      ['agents', ['list', 'check', 'new']],
      ['sessions', ['list', 'show', 'delete', 'repair']],
    ] as const) {
      for (const argv of [
        [group, '--help'],
        [group, '-h'],
        ['help', group],
      ]) {
        const help = await cli(argv);
        expect(help).toMatchObject({ code: 0, stderr: '' });
        for (const sub of subs)
          expect(help.stdout, argv.join(' ')).toMatch(new RegExp(`birdie ${group} ${sub}\\b`));
        expect(help.stdout).toContain(`birdie ${group} COMMAND --help`);
      }
      // a subcommand's own help stays its own
      expect((await cli([group, 'list', '--help'])).stdout).toContain(`Usage: birdie ${group} list`);
    }
  });

  it('birdie -p "<prompt>" is birdie run; a mistyped command still gets "did you mean"', async () => {
    const printed = await cli(['-p', 'count these', '--skills-dir', TEST_SKILLS], scripted('count.json'));
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('There are 3 words.');
    const typo = await cli(['rnu', 'hello']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "run"? To send it as a message: birdie -- "rnu"');
  });

  it('exits 2 with a suggestion for an unknown command', async () => {
    expect(await cli(['sesions'])).toMatchObject({ code: 2, stdout: '' });
    expect((await cli(['sesions'])).stderr).toContain('Did you mean "sessions"?');
  });
});

describe('birdie skills', () => {
  it('check prints file:line:col severity message ruleId, a summary, and exits 1 on a fatal problem', async () => {
    const result = await cli(['skills', 'check', join(FIXTURES, 'bad-skills')]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /broken\/SKILL\.md:8:1 {2}error {2}Tool `no_entry` has no `entrypoint:` {2}skill-parser:tool-missing-entrypoint$/,
    );
    expect(lines.at(-1)).toBe('1 skill loaded: 1 error, 0 warnings, 0 info');
  });

  it('check exits 0 on clean folders, for a folder of skills or a single skill', async () => {
    expect(await cli(['skills', 'check', TEST_SKILLS])).toMatchObject({
      code: 0,
      stdout: '5 skills loaded: 0 errors, 0 warnings, 0 info\n',
    });
    expect((await cli(['skills', 'check', join(TEST_SKILLS, 'echoer')])).stdout).toBe(
      '1 skill loaded: 0 errors, 0 warnings, 0 info\n',
    );
    expect((await cli(['skills', 'check', 'nope'])).code).toBe(1);
  });

  it('check and agents check report a path that does not exist as an error of its own', async () => {
    for (const group of ['skills', 'agents']) {
      const result = await cli([group, 'check', 'nope']);
      expect(result.code, group).toBe(1);
      expect(result.stdout, group).toBe(
        `nope:1:1  error  no such file or folder  birdie:missing-path\n\n0 ${group} loaded: 1 error, 0 warnings, 0 info\n`,
      );
    }
  });

  it('list shows name, kind, tools, default and source folder', async () => {
    const result = await cli(['skills', 'list', ...withSkills]);
    expect(result.code).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s{2,}/));
    expect(rows[0]).toEqual(['NAME', 'KIND', 'TOOLS', 'DEFAULT', 'LAYER', 'FOLDER']);
    expect(rows).toContainEqual(['echoer', 'tool', 'shout', 'no', 'explicit', join(TEST_SKILLS, 'echoer')]);
    expect(rows).toContainEqual([
      'haiku-style',
      'knowledge',
      '-',
      'yes',
      'explicit',
      join(TEST_SKILLS, 'haiku-style'),
    ]);
    const json = (await cli(['skills', 'list', '--json', ...withSkills])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.find((s) => s.name === 'sleeper')).toMatchObject({
      kind: 'tool',
      tools: ['slow_sleep', 'chatty_sleep', 'stubborn_sleep'],
      enabledByDefault: true,
    });
  });

  it("list's DEFAULT is what new sessions start with: skills.enable and skills.disable count (scale report 8)", async () => {
    expect((await cli(['config', 'add', 'skills.enable', 'echoer'])).code).toBe(0);
    expect((await cli(['config', 'add', 'skills.disable', 'haiku-style'])).code).toBe(0);
    const rows = (await cli(['skills', 'list', ...withSkills])).stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s{2,}/));
    expect(rows.find((r) => r[0] === 'echoer')?.[3]).toBe('yes (skills.enable)');
    expect(rows.find((r) => r[0] === 'haiku-style')?.[3]).toBe('no (skills.disable)');
    expect(rows.find((r) => r[0] === 'sleeper')?.[3]).toBe('yes');
    const json = (await cli(['skills', 'list', '--json', ...withSkills])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.find((s) => s.name === 'echoer')).toMatchObject({
      enabledByDefault: false,
      newSessions: true,
      setBy: 'skills.enable',
    });
    expect(json.find((s) => s.name === 'haiku-style')).toMatchObject({
      enabledByDefault: true,
      newSessions: false,
      setBy: 'skills.disable',
    });
  });

  it('list with settings it cannot read says so and exits 2, instead of a DEFAULT column that ignores them', async () => {
    expect((await cli(['config', 'add', 'skills.enable', 'echoer'])).code).toBe(0);
    const file = join(box.home, 'config.json');
    const good = await readFile(file, 'utf8');
    for (const broken of [
      good.replace('"echoer"', '"echoer",'),
      good.replace('{', '{"approval": "maybe",'),
    ]) {
      await writeFile(file, broken);
      const result = await cli(['skills', 'list', ...withSkills]);
      expect(result.code, broken).toBe(2);
      expect(result.stderr, broken).toContain(file);
      expect(result.stderr, broken).toMatch(
        /DEFAULT shows each skill's own default, not your settings: the config file cannot be used: /,
      );
      const rows = result.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s{2,}/));
      expect(rows.find((r) => r[0] === 'echoer')?.[3]).toBe('no');
      expect((await cli(['skills', 'list', '--json', ...withSkills])).code).toBe(2);
    }
  });

  it('new scaffolds a valid skill in the user folder whose tool runs', async () => {
    const created = await cli(['skills', 'new', 'git-helper']);
    expect(created.code).toBe(0);
    const file = join(box.home, 'skills', 'git-helper', 'SKILL.md');
    expect((await stat(file)).isFile()).toBe(true);
    expect(await cli(['skills', 'check', join(box.home, 'skills')])).toMatchObject({ code: 0 });
    const listed = await cli(['skills', 'list']);
    expect(listed.stdout).toMatch(/git-helper\s+tool\s+git_helper_echo\s+no\s+user/);
    expect(await cli(['tool', 'git_helper_echo', '--args', '{"message":"it works"}'])).toMatchObject({
      code: 0,
      stdout: 'it works\n',
    });
    expect((await cli(['skills', 'new', 'git-helper'])).code).toBe(2);
    expect((await cli(['skills', 'new', 'Bad Name'])).stderr).toContain('lowercase words joined by hyphens');
  });

  // Exploratory report (skill author) #2: the scaffold said "Prose here is for the model", and a tool skill's prose
  // reaches the model only with `always_inject: true`: what it said was never sent.
  it("new: the scaffold's prose says who reads it, and with always_inject the model gets it", async () => {
    expect((await cli(['skills', 'new', 'prose-check'])).code).toBe(0);
    const file = join(box.home, 'skills', 'prose-check', 'SKILL.md');
    const text = await readFile(file, 'utf8');
    const { parseSkill } = await import('@birdie/skill-parser');
    const parsed = (source: string) => parseSkill(source, { path: file }).skill;
    expect(parsed(text)?.body).toBeNull();
    expect(text).toContain('This text is for\npeople reading the skill');
    const injected = parsed(
      text.replace('enabled_by_default: false', 'enabled_by_default: false\nalways_inject: true'),
    );
    expect(injected?.body).toContain('add `always_inject: true` to the frontmatter');
  });

  it('new says a name over 64 characters is too long, not that it is not lowercase', async () => {
    const long = await cli(['skills', 'new', 'a'.repeat(65)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain(
      'skill names are at most 64 characters (the Agent Skills rule); this one has 65',
    );
    expect(long.stderr).not.toContain('lowercase');
    expect(await cli(['agents', 'new', `${'b'.repeat(60)}-${'c'.repeat(10)}`])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'agent names are at most 64 characters (the Agent Skills rule); this one has 71',
      ),
    });
    expect((await cli(['skills', 'new', 'a'.repeat(64)])).code).toBe(0);
  });
});

describe('birdie tool', () => {
  it('runs a tool through its entrypoint; arguments stay data', async () => {
    const result = await cli(['tool', 'shout', ...withSkills, '--args', '{"text":"$(echo pwned) ; ls"}']);
    expect(result).toMatchObject({ code: 0, stdout: '$(ECHO PWNED) ; LS\n' });
  });

  it('explains unknown tools and bad --args', async () => {
    const unknown = await cli(['tool', 'shoutt', ...withSkills]);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('Did you mean "shout"?');
    expect((await cli(['tool', 'shout', ...withSkills, '--args', '[1]'])).stderr).toContain(
      'must be a JSON object',
    );
    expect((await cli(['tool', 'shout', ...withSkills, '--args', '{oops'])).stderr).toContain(
      'not valid JSON',
    );
  });

  it('runs tools in --cwd, and refuses a --cwd that is not a folder', async () => {
    const result = await cli([
      'tool',
      'run_command',
      ...withSkills,
      '--cwd',
      '..',
      '--args',
      '{"command":"pwd"}',
    ]);
    expect(result).toMatchObject({ code: 0, stdout: `${join(box.cwd, '..')}\n` });
    const bad = await cli(['tool', 'count_words', ...withSkills, '--cwd', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a folder');
  });

  it('checks the arguments against the schema like the agent does (exit 2), and reports a failing tool with exit 1', async () => {
    const invalid = await cli(['tool', 'shout', ...withSkills, '--args', '{}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('birdie: tool shout: Invalid arguments, fix them and call again:');
    expect(invalid.stderr).toContain('text');
    const failing = await cli(['tool', 'run_command', ...withSkills, '--args', '{"command":"exit 1"}']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/^Error \(non-zero-exit\): command exited with code 1/);
    const noisy = await cli([
      'tool',
      'run_command',
      ...withSkills,
      '--args',
      '{"command":"echo out1; echo err1 >&2; exit 3"}',
    ]);
    expect(noisy.code).toBe(1);
    expect(noisy.stderr).toMatch(/^Error \(non-zero-exit\): command exited with code 3\noutput:\n/);
    expect(noisy.stderr.split('err1').length - 1).toBe(1);
    expect(noisy.stderr).not.toContain('stderr:');
  });
});

describe('provider configuration', () => {
  it('without any provider and without a TTY names the variables to set (exit 2)', async () => {
    const result = await cli(['run', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('LLM_VENDOR');
    expect(result.stderr).toContain('OPENAI_API_KEY');
  });

  it('birdie without a TTY points at birdie run', async () => {
    const result = await cli([], scripted('count.json'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('birdie run');
  });

  it('reads ~/.birdie/config.json, and --config FILE; a bad file is a config error', async () => {
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ vendor: 'scripted', script: join(FIXTURES, 'scripts', 'count.json') }),
    );
    expect(await cli(['run', 'hello'])).toMatchObject({ code: 0, stdout: 'Plain answer.\n' });
    const bad = join(box.cwd, 'bad.json');
    await writeFile(bad, '{"vendor": "scripted",,}');
    const result = await cli(['run', 'hello', '--config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Invalid JSON in file .*bad\.json at line 1, column \d+/);
    const unknown = await cli(['run', 'hello'], { LLM_PROVIDER_CONFIG: '{"vendor":"openia"}' });
    expect(unknown.stderr).toContain('use one of: openai');
  });
});

describe('birdie run', () => {
  it('streams the answer to stdout and tool calls to stderr; the session continues with --session-id', async () => {
    const env = scripted('count.json');
    const first = await cli(['run', 'count these', ...withSkills], env);
    expect(first).toMatchObject({ code: 0, stdout: 'There are 3 words.\n' });
    expect(first.stderr).toContain('count_words');
    const id = /session (\S+) /.exec(first.stderr)![1]!;
    const second = await cli(['run', '-', ...withSkills, '--session-id', id], env, 'and now?');
    expect(second).toMatchObject({ code: 0, stdout: 'Plain answer.\n' });
    const sessions = await cli(['sessions', 'list', '--json']);
    expect(
      sessions.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([expect.objectContaining({ id, turns: 2, userId: 'tester' })]);
  });

  it('refuses tools that need approval unless --yes or --approval never', async () => {
    const env = scripted('count.json');
    const refused = await cli(['run', 'touch it', ...withSkills], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('needs approval');
    expect(refused.stderr).toContain('--yes');
    await expect(stat(join(box.cwd, 'marker.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    const approved = await cli(['run', 'touch it', ...withSkills, '--yes'], env);
    expect(approved).toMatchObject({ code: 0, stdout: 'Finished.\n' });
    expect((await stat(join(box.cwd, 'marker.txt'))).isFile()).toBe(true);
  });

  it('a model failure is a run error: exit 1, reported once, logged', async () => {
    const result = await cli(['run', 'hello'], scripted('failing.json'));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.match(/invalid api key/g)).toHaveLength(1);
    const [run] = (await cli(['logs', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(run).toMatchObject({ status: 'error', error: expect.stringContaining('invalid api key') });
  });

  it('rejects a bad --approval, an unknown session and an empty prompt with exit 2', async () => {
    const env = scripted('count.json');
    expect((await cli(['run', 'x', '--approval', 'maybe'], env)).code).toBe(2);
    const unknown = await cli(['run', 'x', '--session-id', '2020-01-01_9'], env);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('no session "2020-01-01_9"');
    expect((await cli(['run', '--session-id', '../etc', 'x'], env)).stderr).toContain('invalid session id');
    expect((await cli(['run', '-'], env, '  \n')).code).toBe(2);
  });
});

describe('sessions and logs', () => {
  it('counts in words that agree with the number: one turn is "1 turn"', async () => {
    const run = await cli(['run', 'count these', ...withSkills], scripted('count.json'));
    const id = /session (\S+) /.exec(run.stderr)![1]!;
    const shown = (await cli(['sessions', 'show', id])).stdout;
    expect(shown).toContain(' · 1 turn · ');
    expect(shown).not.toMatch(/\b1 turns\b/);
  });

  it('show prints the conversation, logs the runs with their tools, delete removes it', async () => {
    const env = scripted('count.json');
    const run = await cli(['run', 'count these', ...withSkills], env);
    const id = /session (\S+) /.exec(run.stderr)![1]!;

    const shown = await cli(['sessions', 'show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('› count these');
    expect(shown.stdout).toContain('⚙ count_words {"text":"one two three"}');
    expect(shown.stdout).toContain('There are 3 words.');
    const messages = (await cli(['sessions', 'show', id, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(messages.map((m) => m.role)).toEqual(['human', 'ai', 'tool', 'ai']);

    const logs = await cli(['logs', '--session', id]);
    expect(logs.stdout).toMatch(new RegExp(`${id}\\s+ok\\s+.*scripted:scripted\\s+-\\s+count_words`));
    const json = (await cli(['logs', '--json', '-n', '1'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json).toEqual([
      expect.objectContaining({
        sessionId: id,
        status: 'ok',
        toolCalls: [expect.objectContaining({ name: 'count_words', status: 'ok', resultUnknown: false })],
        // The complete run log: who, which thread and checkpoints (messages referenced), tokens per model, answer.
        userId: 'tester',
        threadId: id,
        endCheckpointId: expect.any(String),
        usage: [expect.objectContaining({ model: 'scripted:scripted' })],
        answer: expect.any(String),
      }),
    ]);
    const runShown = await cli(['logs', 'show', String(json[0].id)]);
    expect(runShown.code).toBe(0);
    expect(runShown.stdout).toMatch(/count_words/);
    expect(runShown.stdout).toContain(`answer: ${json[0].answer}`);
    expect((await cli(['logs', 'show', '999'])).stderr).toMatch(/no run 999 of user tester/);
    expect((await cli(['logs', '--since', 'yesterday'])).stderr).toMatch(/--since must be an ISO date/);
    // Not 2 March: a date that does not exist is refused, not rolled over.
    expect((await cli(['logs', '--since', '2026-02-30'])).stderr).toMatch(
      /got "2026-02-30" \(February 2026 has no day 30\)/,
    );
    expect((await cli(['logs', '--status', 'gone'])).stderr).toMatch(/--status must be one of running, ok/);
    expect((await cli(['logs', '--since', '1h', '--status', 'ok'])).stdout).toMatch(/count_words/);
    expect((await cli(['logs', '-n', 'x'])).code).toBe(2);
    expect((await cli(['logs', '--user', 'someone-else'])).stdout).toBe('No runs logged yet.\n');

    expect(await cli(['sessions', 'delete', id])).toMatchObject({ code: 0 });
    expect((await cli(['sessions', 'show', id])).code).toBe(2);
    expect((await cli(['sessions', 'list'])).stdout).toContain('No sessions');
  });

  it('keeps API keys out of everything it writes', async () => {
    const key = 'sk-test-SECRET-0123456789abcdef';
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ vendor: 'scripted', script: join(FIXTURES, 'scripts', 'count.json') }),
    );
    const result = await cli(['run', 'count these', ...withSkills, '--json'], {
      OPENAI_API_KEY: key,
      ANTHROPIC_API_KEY: key,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(key);
    for (const file of ['birdie.db', 'birdie.db-wal']) {
      const bytes = await readFile(join(box.home, file)).catch(() => Buffer.alloc(0));
      expect(bytes.includes(key)).toBe(false);
    }
  });
});

describe('a damaged database', () => {
  it('is reported with where and why, exit 1, and no stack trace', async () => {
    await writeFile(join(box.home, 'birdie.db'), 'not a database, just text\n'.repeat(200));
    for (const argv of [['sessions', 'list'], ['logs'], ['run', 'hi']]) {
      const result = await cli(argv, scripted('demo.json'));
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stderr).toContain(`${join(box.home, 'birdie.db')} is malformed`);
      expect(result.stderr).toContain('file is not a database');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr).not.toContain('unexpected error');
    }
  });
});
