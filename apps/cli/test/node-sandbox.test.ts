import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { configureSandbox, sandboxStatus } from '@birdie/entrypoints';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { styler } from '@birdie/terminal/style';
import { bootRepl } from '../src/repl/boot.js';
import { runSlash } from '../src/repl/slash.js';
import { startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

/**
 * Issue 28.6: under `--sandbox`, a `node:` tool of a user's skill folder wrote outside the working folder, read
 * `~/.birdie` and saw `OPENAI_API_KEY`. It now runs in a sandboxed child; birdie's own node: tools (the bundled
 * folder) stay in-process. Real bubblewrap, the compiled CLI, and an unsandboxed control run for each effect.
 */
async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    throw new Error(
      `these tests need a working bubblewrap: ${status.reason}. (run "sh scripts/system-packages.sh", as README command 1 and CI do)`,
    );
  }
}

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

const PROBE_SKILL = `---
name: probe
description: Shows what a node tool can reach.
---

## Tools

### probe
description: Writes a file at target, reads the user's birdie config and the OpenAI key.
entrypoint: node:tools.mjs#probe
schema:
  type: object
  properties:
    target: { type: string }
  required: [target]
`;

const PROBE_CODE = `import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
export function probe({ target }) {
  const seen = {};
  try { writeFileSync(target, 'escaped'); seen.write = 'written'; } catch (e) { seen.write = e.code; }
  try { seen.config = readFileSync(join(homedir(), '.birdie', 'config.json'), 'utf8'); } catch (e) { seen.config = e.code; }
  seen.key = process.env.OPENAI_API_KEY ?? null;
  return seen;
}
`;

let box: Sandbox;
let outside: string;
beforeAll(async () => {
  // Outside /tmp (which the sandbox replaces with its own): there the read-only root is what stops a write.
  outside = await mkdtemp('/var/tmp/birdie-cli-node-');
});
afterAll(() => rm(outside, { recursive: true, force: true }));
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie tool --sandbox with a node: tool of a user skill', { timeout: 90_000 }, () => {
  it('the control writes outside, reads ~/.birdie and sees OPENAI_API_KEY; --sandbox runs it confined and says so', async () => {
    await requireBubblewrap();
    // ~/.birdie as a user has it (no BIRDIE_HOME): the config with a key, and the skill in ~/.birdie/skills
    const home = join(box.dir.path, 'home');
    const skill = join(home, '.birdie', 'skills', 'probe');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(home, '.birdie', 'config.json'),
      JSON.stringify({ provider: { vendor: 'openai', api_key: 'sk-config-secret' } }),
    );
    await writeFile(join(skill, 'SKILL.md'), PROBE_SKILL);
    await writeFile(join(skill, 'tools.mjs'), PROBE_CODE);
    const env: NodeJS.ProcessEnv = { ...box.env, HOME: home, OPENAI_API_KEY: 'sk-host-secret' };
    delete env.BIRDIE_HOME;
    const probe = async (target: string, ...flags: string[]) => {
      const run = startBirdie(['tool', 'probe', ...flags, '--args', JSON.stringify({ target })], {
        env,
        cwd: box.cwd,
        timeoutMs: 60_000,
      });
      const done = await run.exited;
      expect(done.code, done.stderr).toBe(0);
      return { seen: JSON.parse(done.stdout) as Record<string, unknown>, stderr: done.stderr };
    };

    const control = join(outside, 'control.txt');
    const open = await probe(control);
    expect(open.seen).toEqual({
      write: 'written',
      config: expect.stringContaining('sk-config-secret'),
      key: 'sk-host-secret',
    });
    expect(await readFile(control, 'utf8')).toBe('escaped');
    expect(open.stderr).toBe('');

    const target = join(outside, 'confined.txt');
    const confined = await probe(target, '--sandbox');
    // the folder outside is not mounted in the sandbox at all (ENOENT); were it shown, it would be read-only (EROFS)
    expect(confined.seen).toEqual({
      write: expect.stringMatching(/^(EROFS|ENOENT)$/),
      config: 'ENOENT',
      key: null,
    });
    expect(existsSync(target)).toBe(false);
    expect(confined.stderr).toContain(
      `birdie: probe runs in the sandbox (bubblewrap): writes only in ${box.cwd} and a private /tmp, no network`,
    );
  });
});

describe("birdie's own node: tools under --sandbox", { timeout: 90_000 }, () => {
  const cli = (argv: string[], env: NodeJS.ProcessEnv = box.env) => runCli(argv, { env, cwd: box.cwd });

  it('filesystem tools run in-process, confined to the working directory by their own checks, and say so', async () => {
    await requireBubblewrap();
    const written = await cli([
      'tool',
      'write_file',
      '--sandbox',
      '--args',
      JSON.stringify({ path: 'notes.txt', content: 'hello' }),
    ]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain(
      "birdie: write_file runs in-process, not in the sandbox: birdie's own tool, confined by its own path checks",
    );
    expect(await readFile(join(box.cwd, 'notes.txt'), 'utf8')).toBe('hello');
    const escaped = await cli(['tool', 'read_file', '--sandbox', '--args', JSON.stringify({ path: '../x' })]);
    expect(escaped.code).toBe(1);
    expect(escaped.stderr).toContain('Refused "../x": paths may not contain ".." segments');
  });

  it('todo writes its plan into the session folder in ~/.birdie, which the sandbox would hide: it ran in-process', async () => {
    await requireBubblewrap();
    const env = { ...box.env, ...scripted('todo.json') };
    const result = await cli(['run', '--json', '--sandbox', '--enable', 'todo', 'plan alpha please'], env);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    const id = String(events.find((e) => e.type === 'session')?.id);
    expect(events.filter((e) => e.type === 'tool-end')).toEqual([
      expect.objectContaining({ name: 'todo_create_plan', ok: true }),
    ]);
    const plan = JSON.parse(await readFile(join(box.home, 'sessions', id, 'todo.json'), 'utf8'));
    expect(plan.steps).toHaveLength(2);
  });

  it('an http: tool under --sandbox says that it runs unconfined', async () => {
    const skill = join(box.home, 'skills', 'fetcher');
    await mkdir(skill, { recursive: true });
    await writeFile(
      join(skill, 'SKILL.md'),
      '---\nname: fetcher\ndescription: Fetches a page.\n---\n\n## Tools\n\n### fetch_page\ndescription: Fetches a page.\nentrypoint: http:get http://127.0.0.1:9/\n',
    );
    const result = await cli(['tool', 'fetch_page', '--sandbox', '--timeout', '5']);
    expect(result.stderr).toContain(
      'birdie: fetch_page runs unconfined: the sandbox confines bash:, python: and node: tools, not http: ones',
    );
  });
});

describe('/info says how each enabled tool runs', { timeout: 60_000 }, () => {
  it("sandboxed, in-process (birdie's own), unconfined: with the sandbox off and on", async () => {
    const skill = join(box.home, 'skills', 'probe');
    await mkdir(skill, { recursive: true });
    await writeFile(join(skill, 'SKILL.md'), PROBE_SKILL);
    await writeFile(join(skill, 'tools.mjs'), PROBE_CODE);
    const printed: string[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (c: Buffer) => printed.push(c.toString('utf8')));
    const env = { ...box.env, ...scripted('repl.json') };
    const io: Io = { stdout, stderr: stdout, stdin: Readable.from([]), env, cwd: box.cwd };
    const state = await bootRepl(
      io,
      {},
      { approval: 'ask', style: styler(stdout, env), resumeId: undefined },
    );
    const info = async () => {
      printed.length = 0;
      await runSlash(state, '/info');
      await new Promise((r) => setImmediate(r));
      return printed.join('');
    };
    try {
      await runSlash(state, '/skill enable filesystem');
      const off = await info();
      expect(off).toMatch(/sandboxed\s+\(no enabled tool\)/);
      expect(off).toMatch(/in-process\s+read_file, list_dir, write_file, .*\(birdie's own tools/);
      expect(off).toMatch(/unconfined\s+probe\n/);
      configureSandbox('always');
      const on = await info();
      expect(on).toMatch(/sandboxed\s+probe \(bubblewrap\)/);
      expect(on).toMatch(/in-process\s+read_file, list_dir, write_file/);
      expect(on).not.toMatch(/unconfined/);
    } finally {
      configureSandbox(undefined);
      state.watcher?.close();
      await state.rt.close();
    }
  });
});
