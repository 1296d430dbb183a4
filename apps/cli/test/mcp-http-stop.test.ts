import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { makeToken } from './helpers/serve.js';

// Exploratory report on `birdie mcp --http`: stopped by SIGTERM during a tool call, it aborted the call and exited at
// once, so the call's run was left `running` in the run log and later reaped as `died` (stdio had the same defect).

let box: Sandbox;
let skillsDir: string;

beforeAll(async () => {
  box = await sandbox();
  skillsDir = join(box.dir.path, 'skills');
  await mkdir(join(skillsDir, 'slow'), { recursive: true });
  await writeFile(
    join(skillsDir, 'slow', 'SKILL.md'),
    [
      '---',
      'name: slow',
      'description: A tool that takes a while.',
      '---',
      '',
      '## Tools',
      '',
      '### slow_long',
      'description: Sleep a minute.',
      'entrypoint: bash:sleep 60; echo late',
      'approval: never',
      'schema:',
      '  type: object',
      '  properties: {}',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await box?.cleanup();
});

describe('birdie mcp --http stopped by SIGTERM', { timeout: 180_000 }, () => {
  it('a call in flight ends its run as cancelled in the run log, not left running to be reaped as died', async () => {
    const runsOf = async () => {
      const logs = await birdie(['logs', '--json', '--user', 'alice'], { env: box.env, cwd: box.cwd });
      expect(logs.code, logs.stderr).toBe(0);
      return logs.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id: number; status: string; toolCalls: Array<{ name: string }> })
        .filter((run) => run.toolCalls.some((call) => call.name === 'slow_long'));
    };
    const token = await makeToken('alice', { env: box.env, cwd: box.cwd });
    const server = startBirdie(['mcp', '--http', '0', '--skills-dir', skillsDir], {
      env: box.env,
      cwd: box.cwd,
      timeoutMs: 150_000,
    });
    const c = new Client({ name: 'sdk-test', version: '1.0.0' });
    try {
      const [, url] = (await server.waitFor(
        'stdout',
        /listening on (http:\/\/\S+)/,
        60_000,
      )) as RegExpMatchArray;
      await c.connect(
        new StreamableHTTPClientTransport(new URL(url!), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      // The call never answers (the server stops under it); closing the client ends it.
      void c.callTool({ name: 'slow_long', arguments: {} }).catch(() => {});
      // The call has started (its journal row is written) before the signal comes.
      let running: Awaited<ReturnType<typeof runsOf>> = [];
      while (running.length === 0) {
        running = (await runsOf()).filter((run) => run.status === 'running');
        if (running.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      server.kill('SIGTERM');
      const finished = await server.exited;
      expect(finished.code, finished.stderr).toBe(0);
      const [run] = (await runsOf()).filter((r) => r.id === running[0]!.id);
      expect(run?.status).toBe('cancelled');
    } finally {
      await c.close().catch(() => {});
      server.kill('SIGKILL');
    }
  });
});
