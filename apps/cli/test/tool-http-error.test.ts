import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// A user's report: `birdie tool` on an http: tool whose server answers 500 printed the response body twice (once in
// the error's message, once again under `output:`). The model read the same twice.

let box: Sandbox;
let server: Server;
beforeEach(async () => {
  box = await sandbox();
  server = createServer((_request, response) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end('{"error":"the database is down"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await box.cleanup();
});

describe('an http: tool whose server fails', { timeout: 60_000 }, () => {
  it('shows the status and the body once', async () => {
    const { port } = server.address() as AddressInfo;
    const skill = join(box.home, 'skills', 'orders');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      `---\nname: orders\ndescription: Reads orders.\n---\n\n## Tools\n\n### list_orders\ndescription: Lists orders.\nentrypoint: http:get http://127.0.0.1:${port}/orders\n`,
    );
    const result = await runCli(['tool', 'list_orders'], { env: box.env, cwd: box.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`GET http://127.0.0.1:${port}/orders answered 500 Internal Server Error`);
    expect(result.stderr.split('the database is down')).toHaveLength(2);
  });
});
