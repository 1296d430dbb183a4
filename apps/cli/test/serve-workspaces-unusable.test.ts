import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported: `birdie serve --workspaces` naming a folder that cannot be made ended in "unexpected error" with a stack
// trace (a file on the way: EEXIST, ENOTDIR), and under /proc it spun for ever at full CPU without a word, since Node's
// recursive mkdir retries ENOENT there. `birdie mcp --http` shares the path. Each is now a usage error (exit 2).

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
  await writeFile(join(box.dir.path, 'a.txt'), 'x');
  await writeFile(join(box.dir.path, 'script.json'), JSON.stringify({ replies: [] }));
});

afterAll(async () => {
  await box?.cleanup();
});

const run = (args: string[]) =>
  birdie(args, {
    env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: join(box.dir.path, 'script.json') },
    cwd: box.cwd,
    timeoutMs: 60_000,
  });

describe('a --workspaces folder that cannot be made', { timeout: 120_000 }, () => {
  it.each([
    ['a file', () => join(box.dir.path, 'a.txt'), 'is not a folder'],
    ['under a file', () => join(box.dir.path, 'a.txt', 'sub'), 'is not a folder'],
    ['under /proc', () => '/proc/birdie-no-such/ws', 'failed (ENOENT)'],
  ])('%s: birdie serve says so and exits 2, without a stack trace', async (_, folder, reason) => {
    const dir = folder();
    const result = await run(['serve', '--port', '0', '--workspaces', dir]);
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`cannot create the folder ${dir}: `);
    expect(result.stderr).toContain(reason);
    expect(result.stderr).toContain('--workspaces');
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('birdie mcp --http too', async () => {
    const dir = join(box.dir.path, 'a.txt');
    const result = await run(['mcp', '--http', '0', '--workspaces', dir]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`cannot create the folder ${dir}: `);
    expect(result.stderr).not.toContain('unexpected error');
  });
});
