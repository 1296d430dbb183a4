import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Entrypoint, EntrypointError, type RunOptions, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';
import { startServer, type TestServer } from './http-server.js';

// Reported by an embedder: `timeoutMs: '30000'` (read from an environment variable), `timeoutMs: -1` or
// `maxOutputBytes: NaN` ran the tool with the 60 s / 100 KiB defaults and said nothing. A limit that is given must be
// one: the call is refused before anything runs.

let skillDir: string;
let server: TestServer;
let hits = 0;

beforeAll(async () => {
  skillDir = await tempDir();
  await writeFile(
    join(skillDir, 'tool.mjs'),
    "export let calls = 0;\nexport function run() { calls += 1; return 'call ' + calls; }\n",
  );
  server = await startServer((_req, res) => {
    hits += 1;
    res.end('ok');
  });
});
afterAll(async () => {
  await server.close();
});

const schema = { type: 'object', properties: {} } as const;
const entrypoints = (): Record<'bash' | 'node' | 'http', Entrypoint> => ({
  bash: resolveEntrypoint('bash:echo ran', { skillDir, schema }),
  node: resolveEntrypoint('node:tool.mjs#run', { skillDir, schema }),
  http: resolveEntrypoint(`http:get ${server.origin}/x`, { skillDir, schema }),
});

const refusal = async (run: Promise<unknown>): Promise<EntrypointError> => {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  return error as EntrypointError;
};

describe('run options that are not what they say', () => {
  const bad: Array<[RunOptions, string]> = [
    [
      { timeoutMs: '30000' as unknown as number },
      'timeoutMs must be a positive number of milliseconds, not "30000" (a string)',
    ],
    [{ timeoutMs: -1 }, 'timeoutMs must be a positive number of milliseconds, not -1'],
    [{ timeoutMs: 0 }, 'timeoutMs must be a positive number of milliseconds, not 0'],
    [{ maxOutputBytes: Number.NaN }, 'maxOutputBytes must be a positive number of bytes, not NaN'],
    [
      { maxImageBytes: Number.POSITIVE_INFINITY },
      'maxImageBytes must be a positive number of bytes, not Infinity',
    ],
    [
      { killGraceMs: null as unknown as number },
      'killGraceMs must be a positive number of milliseconds, not null',
    ],
    [{ retries: -2 }, 'retries must be a whole number from 0, not -2'],
    [{ retries: 1.5 }, 'retries must be a whole number from 0, not 1.5'],
  ];
  it.each(bad)(
    '%o is refused as bad-option by every scheme, before anything runs',
    async (options, message) => {
      const all = entrypoints();
      const calls = async () => Number(/^call (\d+)$/.exec((await all.node.run({}, {})).output)![1]);
      const nodeCalls = await calls();
      const before = hits;
      for (const [scheme, entrypoint] of Object.entries(all)) {
        const error = await refusal(entrypoint.run({}, options));
        expect(error.code, scheme).toBe('bad-option');
        expect(error.message, scheme).toBe(message);
      }
      // Nothing ran: no request reached the server, the node tool was not called.
      expect(hits).toBe(before);
      expect(await calls()).toBe(nodeCalls + 1);
    },
  );

  it('refuses a node: tool before its module is first imported (its top-level code does not run)', async () => {
    await writeFile(
      join(skillDir, 'fresh.mjs'),
      "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./imported', import.meta.url), 'yes');\nexport function run() { return 'ran'; }\n",
    );
    const fresh = resolveEntrypoint('node:fresh.mjs#run', { skillDir, schema });
    const error = await refusal(fresh.run({}, { timeoutMs: -1 }));
    expect(error.code).toBe('bad-option');
    expect(existsSync(join(skillDir, 'imported'))).toBe(false);
    expect((await fresh.run({}, {})).output).toBe('ran');
    expect(existsSync(join(skillDir, 'imported'))).toBe(true);
  });

  it('takes limits that are given well, and leaves out the ones not given', async () => {
    const { bash, node, http } = entrypoints();
    expect((await bash.run({}, { timeoutMs: 5_000, maxOutputBytes: 3, killGraceMs: 100 })).output).toContain(
      'ran',
    );
    expect((await node.run({}, { timeoutMs: 1.5e3, maxImageBytes: 10 })).output).toMatch(/^call \d+$/);
    expect((await http.run({}, { retries: 0, timeoutMs: 5_000, maxOutputBytes: undefined })).output).toBe(
      'ok',
    );
  });
});
