import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { BUNDLED } from './helpers/pinned-check.js';
import { runCli } from './helpers/run-in-process.js';

// Report: `birdie tool list_tasks --session-id ID` failed with "Error (builtin-only): builtin:list_tasks is provided by
// the agent itself … so it runs only inside a session, not on its own" (exit 1), although a session was given and
// `--help` says `--session-id` runs the tool as that session. A built-in tool runs only when the agent calls it; the
// refusal now says so before anything runs, as a usage error, and says where to go instead.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ ...scripted('count.json'), BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => runCli(args, { env: box.env, cwd: box.cwd });

describe('birdie tool with a built-in tool', () => {
  it('is refused up front (exit 2), with or without --session-id, naming what to use instead', async () => {
    const created = await cli(['run', '--json', '--skills-dir', TEST_SKILLS, 'count these words']);
    expect(created.code).toBe(0);
    const id = String(JSON.parse(created.stdout.split('\n')[0]!).id);
    for (const extra of [[], ['--session-id', id]]) {
      const tasks = await cli(['tool', 'list_tasks', ...extra]);
      expect(tasks.code, tasks.stderr).toBe(2);
      expect(tasks.stderr).toBe(
        'birdie: list_tasks is a built-in tool (builtin:list_tasks): only the agent runs it, during a turn, so ' +
          '`birdie tool` cannot run it, with or without --session-id. Your scheduled tasks: birdie tasks list ' +
          '(birdie tasks cancel ID cancels one).\n',
      );
      const memory = await cli(['tool', 'remember', '--args', '{"content":"x"}', ...extra]);
      expect(memory.code).toBe(2);
      expect(memory.stderr).toBe(
        'birdie: remember is a built-in tool (builtin:remember): only the agent runs it, during a turn, so ' +
          '`birdie tool` cannot run it, with or without --session-id. Ask for it in a conversation instead ' +
          '(birdie run "…").\n',
      );
    }
  });
});
