import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { startWorker, type Worker } from './helpers/serve.js';

// An exploratory report: any client, without a token, put raw escape sequences and NUL bytes into the operator's
// text log through the request path (`/v1/q%1B%5B1A…`): ESC[1A ESC[2K wiped earlier lines on a `tail -f`, and one NUL
// made grep call the whole log binary. Only paths with a blank, a quote or `=` were quoted and escaped.

let box: Sandbox;
let worker: Worker;

beforeAll(async () => {
  box = await sandbox({
    BIRDIE_BUNDLED_SKILLS: join(CLI_ROOT, '..', '..', 'skills'),
    LLM_VENDOR: 'scripted',
  });
  box.env.LLM_SCRIPT = join(box.dir.path, 'script.json');
  await writeFile(box.env.LLM_SCRIPT, JSON.stringify({ replies: [] }));
  worker = await startWorker([], { env: box.env, cwd: box.cwd, home: box.home });
}, 120_000);

afterAll(async () => {
  worker?.process.kill('SIGKILL');
  await box?.cleanup();
});

describe('birdie serve --log-format text', () => {
  it("writes a client's control and invisible characters escaped: no escape sequence, NUL or bidi override reaches the log", async () => {
    const paths = [
      '/v1/q%1B%5B1A%1B%5B2K%1B%5B8m',
      '/v1/r%07%08%08%00',
      '/v1/s%C2%9B2J', // U+009B, the one-character CSI of 8-bit terminals
      '/v1/t%E2%80%AEtxt.exe', // U+202E, a right-to-left override
    ];
    for (const path of paths) expect((await worker.request(path)).status).toBe(401);
    await worker.process.waitFor('stderr', /path="\/v1\/t/, 30_000);
    const log = worker.process.stderr();
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(log).toContain('path="/v1/q\\u001b[1A\\u001b[2K\\u001b[8m"');
    expect(log).toContain('path="/v1/r\\u0007\\b\\b\\u0000"');
    expect(log).toContain('path="/v1/s\\u009b2J"');
    expect(log).toContain('path="/v1/t\\u202etxt.exe"');
    // A plain path stays as it was: unquoted.
    expect((await worker.request('/v1/plain-path')).status).toBe(401);
    await worker.process.waitFor('stderr', /path=\/v1\/plain-path status=401/, 30_000);
  });
});
