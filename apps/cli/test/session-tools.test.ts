import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// The real bundled skills (all disabled by default), so `--enable todo` reaches the todo skill that ships.
const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ ...scripted('todo.json'), BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

type Event = { type: string; [key: string]: unknown };
async function runJson(argv: string[]): Promise<{ code: number; events: Event[]; stderr: string }> {
  const result = await cli(['run', '--json', ...argv]);
  const events = result.stdout
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);
  return { code: result.code, events, stderr: result.stderr };
}
const sessionOf = (events: Event[]) => String(events.find((e) => e.type === 'session')?.id);
const toolOutputs = (events: Event[]) =>
  events
    .filter((e) => e.type === 'tool-end')
    .map((e) => ({ name: e.name, ok: e.ok, output: String(e.output) }));

describe('tools know their session (todo, through birdie run)', () => {
  it('two sessions keep two plans; each one shows its own, also through birdie tool --session-id', async () => {
    const alpha = await runJson(['--enable', 'todo', 'plan alpha please']);
    const beta = await runJson(['--enable', 'todo', 'plan beta please']);
    expect(alpha.code).toBe(0);
    expect(beta.code).toBe(0);
    const [a, b] = [sessionOf(alpha.events), sessionOf(beta.events)];
    expect(a).not.toBe(b);
    expect(toolOutputs(alpha.events)).toEqual([
      { name: 'todo_create_plan', ok: true, output: expect.stringContaining('Alpha first step') },
    ]);
    expect(toolOutputs(beta.events)).toEqual([
      { name: 'todo_create_plan', ok: true, output: expect.stringContaining('Beta only step') },
    ]);

    // The grant was saved with each session: no --enable needed to continue it.
    for (const [id, own, other] of [
      [a, 'Alpha first step', 'Beta only step'],
      [b, 'Beta only step', 'Alpha first step'],
    ] as const) {
      const shown = await runJson(['--session-id', id, 'show the plan']);
      expect(shown.code).toBe(0);
      const [output] = toolOutputs(shown.events);
      expect(output).toMatchObject({ name: 'todo_show_plan', ok: true });
      expect(output?.output).toContain(own);
      expect(output?.output).not.toContain(other);

      const direct = await cli(['tool', 'todo_show_plan', '--session-id', id]);
      expect(direct.code).toBe(0);
      expect(direct.stdout).toContain(own);
      expect(direct.stdout).not.toContain(other);
    }

    // Each plan is a file in its session's own folder, readable by its owner only.
    const dirA = join(box.home, 'sessions', a);
    expect(JSON.parse(await readFile(join(dirA, 'todo.json'), 'utf8')).steps).toHaveLength(2);
    expect((await stat(dirA)).mode & 0o777).toBe(0o700);
    expect((await stat(join(box.home, 'sessions'))).mode & 0o777).toBe(0o700);

    // Deleting a session deletes its folder, and leaves the other one alone.
    expect((await cli(['sessions', 'delete', a])).code).toBe(0);
    expect(existsSync(dirA)).toBe(false);
    expect(existsSync(join(box.home, 'sessions', b, 'todo.json'))).toBe(true);
  });

  it('birdie tool without --session-id runs with no session: todo refuses and says why', async () => {
    const result = await cli(['tool', 'todo_show_plan']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no session was given');
    const unknown = await cli(['tool', 'todo_show_plan', '--session-id', '2020-01-01_9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session "2020-01-01_9"');
    expect(existsSync(join(box.home, 'sessions', '2020-01-01_9'))).toBe(false);
  });
});

describe('birdie run --enable / --disable', () => {
  it('an unknown skill is a usage error naming the closest one, and creates no session', async () => {
    const result = await cli(['run', '--enable', 'tood', 'plan alpha']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('--enable: no skill "tood". Did you mean "todo"?');
    expect((await cli(['run', '--disable', 'filesytem', 'x'])).stderr).toContain(
      'Did you mean "filesystem"?',
    );
    expect((await cli(['run', '--enable', 'todo', '--disable', 'todo', 'x'])).code).toBe(2);
    expect((await cli(['sessions', 'list', '--json'])).stdout).toBe('');
  });

  it('--disable takes a skill away from a session for this turn and the next', async () => {
    const first = await runJson(['--enable', 'todo', '--enable', 'filesystem', 'plan alpha']);
    const id = sessionOf(first.events);
    const disabled = await runJson(['--session-id', id, '--disable', 'todo', 'show the plan']);
    expect(toolOutputs(disabled.events)).toEqual([
      { name: 'todo_show_plan', ok: false, output: expect.stringContaining('not available in this session') },
    ]);
    const grants = await cli(['run', '--session-id', id, '--json', '--enable', 'todo', 'show it']);
    expect(grants.code).toBe(0);
    expect(grants.stdout).toContain('Alpha first step');
  });

  it('birdie run --help documents the flags', async () => {
    const help = await cli(['run', '--help']);
    expect(help.stdout).toMatch(/--enable SKILL\s+enable this skill for the session/);
    expect(help.stdout).toMatch(/--disable SKILL\s+disable this skill/);
    expect(help.stdout).toContain('birdie run --enable filesystem');
    // The flags are checked against the skills of every layer, --skills-dir included.
    expect(
      (await cli(['run', '--skills-dir', TEST_SKILLS, '--enable', 'echoer', 'show'])).stderr,
    ).not.toContain('no skill');
  });
});
