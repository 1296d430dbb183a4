import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { FIXTURES, type Sandbox, sandbox } from './helpers/env.js';
import { script } from './helpers/sessions.js';

// Exploratory report (acp), defect 3's sibling: `birdie run` died (exit 1, a stack trace, the run logged `died`) when
// a skill's `node:` tool left a rejected promise nobody handled. It is that call's failure; the turn goes on.

const STRAY_SKILLS = join(FIXTURES, 'stray-skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie run and a node: tool that leaves a failure behind', { timeout: 60_000 }, () => {
  it('the stray rejection fails the call, the model answers, the run ends ok', async () => {
    const env = await script(box.dir.path, 'stray', [
      { tool_calls: [{ name: 'stray_rejection', args: {} }] },
      { text: 'the tool failed, moving on' },
    ]);
    const run = await birdie(['run', '--json', '--skills-dir', STRAY_SKILLS, '-y', 'go'], {
      env: { ...box.env, ...env },
      cwd: box.cwd,
    });
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.code).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    const end = events.find((e) => e.type === 'tool-end');
    expect(JSON.stringify(end)).toContain(
      'left a promise rejected that nothing handled: Error: stray rejection in tool',
    );
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'ok' });

    const logs = await birdie(['logs', '--json'], { env: box.env, cwd: box.cwd });
    expect(JSON.parse(logs.stdout.trim().split('\n')[0]!)).toMatchObject({ status: 'ok' });
  });

  it("a rejection no tool is behind (birdie's own, a library's) is logged and the command exits 1, not 0", async () => {
    const env = await script(box.dir.path, 'plain', [{ text: 'hello' }]);
    // Preloaded code that leaves a rejected promise nobody handles while the command runs (at its first write to
    // stdout, the answer: the handlers are installed by then), not a tool's.
    const code =
      'const w = process.stdout.write.bind(process.stdout); let once = true; process.stdout.write = (...a) => ' +
      "{ if (once) { once = false; Promise.reject(new Error('nobody handles this')); } return w(...a); };";
    // NODE_OPTIONS splits on spaces: the module's text goes percent-encoded.
    const stray = `data:text/javascript,${encodeURIComponent(code)}`;
    const run = await birdie(['run', 'hi'], {
      env: { ...box.env, ...env, NODE_OPTIONS: `--import=${stray}` },
      cwd: box.cwd,
    });
    expect(run.stdout).toContain('hello');
    expect(run.stderr).toContain('a promise was rejected and nothing handled it');
    expect(run.stderr).toContain('nobody handles this');
    expect(run.code).toBe(1);
  });
});
