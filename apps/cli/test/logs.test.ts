import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';
import { jsonLines, STORE_SKILLS, script, sessionIdOf } from './helpers/sessions.js';

// Issue 30, defect 10: what `birdie logs` says about runs.

let box: Sandbox;
let running: BirdieProcess | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  running?.kill('SIGKILL');
  running = undefined;
  await box.cleanup();
});

const cli = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(argv, { env: { ...box.env, ...env }, cwd: box.cwd });

const waitUntil = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('birdie logs', { timeout: 90_000 }, () => {
  it('a filter that matches nothing says so, not that no runs were logged', async () => {
    const run = await cli(['run', 'count these', '--skills-dir', TEST_SKILLS], scripted('count.json'));
    expect(run.code, run.stderr).toBe(0);
    const none = await cli(['logs', '--status', 'running']);
    expect(none.code).toBe(0);
    expect(none.stdout).not.toContain('No runs logged yet.');
    expect(none.stdout).toBe('No runs match --status running; `birdie logs` lists every run.\n');
    const two = await cli(['logs', '--status', 'error', '--agent', 'reviewer']);
    expect(two.stdout).toMatch(/^No runs match --agent reviewer --status error;/);
    // A user with no runs at all still hears that.
    expect((await cli(['logs', '--user', 'someone-else'])).stdout).toBe('No runs logged yet.\n');
  });

  it('a run of an agent that names a tier logs the model that answered, not the default', async () => {
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } }),
    );
    const agents = join(box.dir.path, 'agents');
    await mkdir(agents);
    await writeFile(
      join(agents, 'quick.md'),
      '---\nname: quick\ndescription: Answers quickly on the fast tier.\nmodel: fast\n---\n\nYou answer in one line.\n',
    );
    const env = await script(box.dir.path, 'plain', [{ text: 'Quick answer.' }]);
    const run = await cli(['run', '--agents-dir', agents, '--agent', 'quick', 'hello'], env);
    expect(run.code, run.stderr).toBe(0);
    const [logged] = jsonLines<{ model: string; usage: { model: string }[] }>(
      (await cli(['logs', '--json'])).stdout,
    );
    expect(logged!.usage.map((u) => u.model)).toEqual(['scripted:quick']);
    expect(logged!.model).toBe('scripted:quick');
    expect((await cli(['logs'])).stdout).toMatch(/scripted:quick \(quick@/);
  });

  it('a killed run keeps the tokens of the model calls that had finished', async () => {
    const started = join(box.dir.path, 'started');
    const env = await script(box.dir.path, 'gated', [
      {
        tool_calls: [
          { name: 'gated_step', args: { token: 'k1', started, release: join(box.dir.path, 'never') } },
        ],
        usage: { input_tokens: 120, output_tokens: 7 },
      },
      { text: 'never reached' },
    ]);
    running = startBirdie(['run', '--json', '--skills-dir', STORE_SKILLS, 'step once'], {
      env: { ...box.env, ...env },
      cwd: box.cwd,
      timeoutMs: 60_000,
    });
    await running.waitFor('stdout', /"type":"session"/, 60_000);
    const id = sessionIdOf(running.stdout());
    // The tool runs: the model call that asked for it is over.
    await waitUntil(async () => (await readFile(started, 'utf8').catch(() => '')).includes('k1'), 'the tool');
    running.kill('SIGKILL');
    await running.gone;
    running = undefined;
    const logs = await birdie(['logs', '--session', id, '--json'], { env: box.env, cwd: box.cwd });
    expect(logs.code, logs.stderr).toBe(0);
    const [run] = jsonLines<Record<string, unknown>>(logs.stdout);
    expect(run).toMatchObject({
      status: 'died',
      inputTokens: 120,
      outputTokens: 7,
      usage: [{ model: 'scripted:scripted', inputTokens: 120, outputTokens: 7 }],
    });
  });
});
