import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken, startWorker, type Worker } from './helpers/serve.js';

// Reported: under `birdie serve`, a user whose workspace folder could not be made (a file where the folder goes, left
// by hand or by an older layout) got `500 internal error` on every turn, and the operator's log had only a stack trace
// of `mkdir` (EEXIST) to go on. Now the user is told their workspace cannot be used (without the server's paths), and
// the log says, on one line, which user, which folder and why.

let box: Sandbox;
let worker: Worker;
let root: string;

beforeAll(async () => {
  box = await sandbox();
  root = join(box.dir.path, 'workspaces');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'alice'), 'not a folder\n');
  const script = join(box.dir.path, 'script.json');
  await writeFile(script, JSON.stringify({ replies: [{ text: 'Hello.' }] }));
  worker = await startWorker(['--workspaces', root], {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    cwd: box.cwd,
    home: join(box.dir.path, 'worker-home'),
  });
}, 120_000);

afterAll(async () => {
  worker?.process.kill();
  await box?.cleanup();
});

describe('a user whose workspace folder is a file', { timeout: 120_000 }, () => {
  it('the turn is refused with workspace-unusable, and the log names the user, the folder and why', async () => {
    const env = { ...box.env, BIRDIE_HOME: worker.home };
    const token = await makeToken('alice', { env, cwd: box.cwd });
    const made = await worker.request('/v1/sessions', { token, json: {} });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };

    const turn = await worker.request(`/v1/sessions/${id}/turns`, { token, json: { prompt: 'hi' } });
    expect(turn.status).toBe(500);
    const { error } = (await turn.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('workspace-unusable');
    expect(error.message).toContain('your workspace cannot be used on this server');
    expect(error.message).not.toContain(root);

    const log = await worker.process.waitFor('stderr', /workspace of user alice[^\n]*\n/, 10_000);
    expect(log[0]).toContain(`${join(root, 'alice')} is not a folder`);
    expect(worker.process.stderr()).not.toMatch(/\n\s+at /);
  });
});
