import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

const BUNDLED_AGENTS = join(CLI_ROOT, 'agents');

type Event = { type: string; agent?: string[]; name?: string; [key: string]: unknown };

let box: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_AGENTS: BUNDLED_AGENTS });
  const script = join(box.dir.path, 'review.json');
  // The reviewer delegates one question to the researcher, then answers with what came back.
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        {
          match: 'review',
          tool_calls: [
            { name: 'task', args: { agent: 'researcher', prompt: 'Which version added the flag?' } },
          ],
        },
        { match: 'Which version', tool_calls: [{ name: 'read_file', args: { path: 'CHANGELOG.md' } }] },
        { match: 'Which version', text: 'Version 2.3 added it (source: CHANGELOG.md:12).' },
        { match: 'review', text: 'Review done: the flag exists since 2.3, so the change is fine.' },
        { text: 'Plain answer.' },
      ],
    }),
  );
  await writeFile(join(box.cwd, 'CHANGELOG.md'), '# 2.3\n- the --flag option\n');
  env = {
    ...box.env,
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: script,
    // The real bundled skills, so the researcher's read_file is the filesystem skill that ships.
    BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills'),
  };
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env, cwd: box.cwd });
const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);

describe('birdie run --agent (the bundled reviewer and researcher)', { timeout: 60_000 }, () => {
  it('the reviewer delegates to the researcher; events carry the agent path; the log records which version ran', async () => {
    const result = await cli([
      'run',
      '--json',
      '--agent',
      'reviewer',
      '--enable',
      'filesystem',
      'review my change',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const stream = events(result.stdout);
    expect(stream[0]).toMatchObject({ type: 'session', agent: 'reviewer' });
    expect(stream.find((e) => e.type === 'tool-start')).toMatchObject({ name: 'task', agent: ['reviewer'] });
    const nested = stream.filter(
      (e) => Array.isArray(e.agent) && e.agent.join('/') === 'reviewer/researcher',
    );
    expect(nested.map((e) => e.type)).toContain('token');
    const task = stream.find((e) => e.type === 'tool-end' && e.name === 'task');
    expect(task).toMatchObject({ ok: true, output: 'Version 2.3 added it (source: CHANGELOG.md:12).' });
    expect(stream.at(-1)).toMatchObject({ type: 'result', status: 'ok' });

    const listed = (await cli(['agents', 'list', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const reviewer = listed.find((a: { name: string }) => a.name === 'reviewer');
    const logged = await cli(['logs', '--json']);
    expect(logged.stderr).toBe('');
    const run = logged.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r: { parentRunId?: number }) => r.parentRunId === undefined);
    expect(run.agent).toEqual({ name: 'reviewer', digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(run.agent.digest).toBe(reviewer.digest);
    // The subagent's work is a run of its own, child of the reviewer's, with its answer and its tokens.
    const runs = logged.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const researcher = listed.find((a: { name: string }) => a.name === 'researcher');
    const child = runs.find((r: { parentRunId?: number }) => r.parentRunId !== undefined);
    expect(child).toMatchObject({
      parentRunId: run.id,
      agent: { name: 'researcher', digest: researcher.digest },
      status: 'ok',
      answer: 'Version 2.3 added it (source: CHANGELOG.md:12).',
    });
    expect(child.inputTokens).toBeGreaterThan(0);
    expect(child.inputTokens).toBeLessThan(run.inputTokens);

    // The subagent's run is shown under its parent's: in the run log and in the session's history.
    expect((await cli(['logs'])).stdout).toMatch(/task\(read_file\)/);
    const id = stream[0]!.id as string;
    const shown = (await cli(['sessions', 'show', id])).stdout;
    expect(shown).toMatch(/⚙ task .*\n {2}│ › Which version added the flag\?\n {2}│ ⚙ read_file/);
    const json = (await cli(['sessions', 'show', id, '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(json.filter((m) => m.subagentOf).map((m) => m.role)).toEqual(['human', 'ai', 'tool', 'ai']);
  });

  it('an unknown agent is a usage error that names the closest one', async () => {
    const result = await cli(['run', '--agent', 'reviwer', 'hello']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--agent: no agent "reviwer". Did you mean "reviewer"?');
  });

  it('a session goes on with the agent that spoke last', async () => {
    const first = await cli(['run', '--json', '--agent', 'reviewer', 'review my change']);
    const id = events(first.stdout)[0]!.id as string;
    const second = await cli(['run', '--json', '--session-id', id, 'anything else']);
    expect(second.code, second.stderr).toBe(0);
    const [run] = (await cli(['logs', '--json', '-n', '1'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(run.agent?.name).toBe('reviewer');
  });
});
