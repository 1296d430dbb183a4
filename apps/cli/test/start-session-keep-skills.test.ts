import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// Exploratory report: an agent with `session: keep` ran once; the user then enabled a skill for it with
// `birdie config set skills.enable X` (what birdie start itself tells them to do). The kept session, made before,
// decided by its own stored grants: X stayed off in its next run, and the refused tool's error said only "not
// available in this session (disabled or unknown)". The settings now apply to a kept session's next run, as
// skills.disable applies to a task's, and a tool refused because its skill is off says which skill.

let box: Sandbox;
let agents: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  // The real bundled skills: filesystem (write_file) is off until enabled.
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills') });
  agents = join(box.dir.path, 'agents');
  await mkdir(agents);
  await writeFile(
    join(agents, 'keeper.md'),
    '---\nname: keeper\ndescription: Writes a tick.\nevery: 1h\nprompt: write the tick\nsession: keep\napprove: [write_file]\n---\nYou write ticks.\n',
  );
  const script = join(box.dir.path, 'script.json');
  await writeFile(
    script,
    JSON.stringify({
      replies: [
        {
          match: 'write the tick',
          tool_calls: [{ name: 'write_file', args: { path: 'tick.txt', content: 'tick' } }],
        },
        { match: 'write the tick', text: 'ticked' },
      ],
    }),
  );
  env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env, cwd: box.cwd, timeoutMs: 60_000 });
const once = () => cli(['start', '--agents-dir', agents, '--once', 'keeper']);

/** The runs of the user, oldest first, with their tool calls. */
async function runs() {
  const store = openStore({ home: box.home });
  try {
    return (await store.runs.list({ userId: 'tester', limit: 100 })).sort((a, b) => a.id - b.id);
  } finally {
    await store.close();
  }
}

/** The tool results of the kept session, in order. */
async function toolResults(sessionId: string): Promise<string[]> {
  const shown = await cli(['sessions', 'show', sessionId, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  return shown.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { role: string; content: string })
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

describe('an agent with `session: keep` and skills the user enables or disables later', {
  timeout: 180_000,
}, () => {
  it('skills.enable set after the kept session was made reaches its next run; skills.disable set later stops it', async () => {
    const file = join(box.cwd, 'tick.txt');

    // Run 1: filesystem is not enabled anywhere. The call is refused, and the refusal says why.
    expect((await once()).code).toBe(0);
    await expect(readFile(file, 'utf8')).rejects.toThrow();
    const [first] = await runs();
    const kept = first!.sessionId;
    const [refused] = await toolResults(kept);
    expect(refused).toContain('tool "write_file" is not available in this session');
    expect(refused).toContain('skill "filesystem"');
    expect(refused).toMatch(/not enabled/);

    // Run 2: the user enables it for their sessions; the kept session (made in run 1) gets it.
    const enabled = await cli(['config', 'add', 'skills.enable', 'filesystem']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect((await once()).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe('tick');
    const second = (await runs())[1]!;
    expect(second.sessionId).toBe(kept);
    expect(second.toolCalls.map((c) => [c.name, c.status])).toEqual([['write_file', 'ok']]);

    // Run 3: the user turns it off again; the kept session, which had it enabled, loses it.
    await rm(file);
    expect((await cli(['config', 'remove', 'skills.enable', 'filesystem'])).code).toBe(0);
    expect((await cli(['config', 'add', 'skills.disable', 'filesystem'])).code).toBe(0);
    expect((await once()).code).toBe(0);
    await expect(readFile(file, 'utf8')).rejects.toThrow();
    const third = (await runs())[2]!;
    expect(third.sessionId).toBe(kept);
    expect(third.toolCalls).toEqual([]);
    const results = await toolResults(kept);
    expect(results).toHaveLength(3);
    expect(results[2]).toContain('skill "filesystem"');
  });
});
