import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, TEST_SKILLS } from './helpers/env.js';

const exec = promisify(execFile);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** `birdie run --json …`: every stdout line parsed, the exit code, stderr. */
async function run(
  args: string[],
): Promise<{ code: number; events: Array<Record<string, any>>; stderr: string }> {
  const result = await exec(process.execPath, [BIN, 'run', '--json', ...args], {
    cwd: box.cwd,
    env: box.env,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
  const events = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
  return { code: result.code, events, stderr: result.stderr };
}

describe('vendor acp: birdie with `birdie acp` (on the scripted model) as its model', () => {
  it('streams the inner answer, shows its tool calls, routes its permission requests to the approval flow, and loads its session again', async () => {
    const innerHome = join(box.dir.path, 'inner-home');
    const innerBundled = join(box.dir.path, 'inner-bundled');
    await mkdir(innerBundled);
    const script = join(box.dir.path, 'inner-script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [
          { match: 'count', tool_calls: [{ name: 'count_words', args: { text: 'one two three' } }] },
          { match: 'count', text: 'There are 3 words.' },
          // Each outer run starts a new inner process, whose script starts over: the prompts pick their replies.
          {
            match: 'marker now',
            tool_calls: [{ name: 'run_command', args: { command: 'touch marker.txt' } }],
          },
          { match: 'marker now', text: 'Touched it.' },
          { match: 'touch', tool_calls: [{ name: 'run_command', args: { command: 'touch marker.txt' } }] },
          { match: 'touch', text: 'Tried to touch it.' },
        ],
      }),
    );
    const config = join(box.dir.path, 'outer.json');
    await writeFile(
      config,
      JSON.stringify({
        provider: {
          vendor: 'acp',
          command: 'node',
          args: [BIN, 'acp', '--skills-dir', TEST_SKILLS],
          // The inner birdie gets the allowlisted environment plus exactly these.
          env: {
            LLM_VENDOR: 'scripted',
            LLM_SCRIPT: script,
            BIRDIE_HOME: innerHome,
            BIRDIE_BUNDLED_SKILLS: innerBundled,
          },
        },
      }),
    );

    const first = await run(['--config', config, 'count these']);
    expect(first.code, first.stderr).toBe(0);
    const session = first.events.find((e) => e.type === 'session') ?? {};
    expect(session.provider).toBe('acp/default');
    const tools = first.events.filter((e) => e.type === 'model-tool');
    // The inner tool's live output arrives as a second in_progress update, before it completes.
    expect(tools.map((e) => e.status)).toEqual(['pending', 'in_progress', 'in_progress', 'completed']);
    expect(tools[0]).toMatchObject({ title: 'count_words', input: { text: 'one two three' } });
    expect(tools[2]?.output).toBe('3\n');
    expect(tools[3]?.output).toContain('3');
    expect(
      first.events
        .filter((e) => e.type === 'token')
        .map((e) => e.text)
        .join(''),
    ).toBe('There are 3 words.');
    // birdie ran no tool itself: the inner agent did.
    expect(first.events.filter((e) => e.type === 'tool-start')).toEqual([]);

    // The inner agent asks before a raw command: `birdie run` without --yes refuses, and nothing runs.
    const refused = await run(['--config', config, '--session-id', session.id, 'touch the marker']);
    expect(refused.code).toBe(1);
    expect(refused.events.find((e) => e.type === 'approval-refused')).toMatchObject({ tool: 'execute' });
    expect(existsSync(join(box.cwd, 'marker.txt'))).toBe(false);

    // With --yes the same request is approved, and the inner agent runs it in the outer turn's folder.
    const approved = await run([
      '--config',
      config,
      '--session-id',
      session.id,
      '--yes',
      'touch the marker now',
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(existsSync(join(box.cwd, 'marker.txt'))).toBe(true);
    expect(
      approved.events
        .filter((e) => e.type === 'token')
        .map((e) => e.text)
        .join(''),
    ).toBe('Touched it.');

    // Three outer processes, one inner session: each later one was loaded again, not started anew.
    const { stdout } = await exec(process.execPath, [BIN, 'sessions', 'list', '--json'], {
      cwd: box.cwd,
      env: { ...box.env, BIRDIE_HOME: innerHome },
    });
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('a program that cannot start is a clear run error', async () => {
    const config = join(box.dir.path, 'bad.json');
    await writeFile(
      config,
      JSON.stringify({ provider: { vendor: 'acp', command: 'no-such-agent-anywhere' } }),
    );
    const result = await run(['--config', config, 'hi']);
    expect(result.code).toBe(1);
    const error = result.events.find((e) => e.type === 'error');
    expect(error?.error.message).toContain('The ACP agent no-such-agent-anywhere: could not be started');
  });
});
