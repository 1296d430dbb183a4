import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  configureNodeTools,
  configureSandbox,
  confinementOf,
  EntrypointError,
  type RunOptions,
  resolveEntrypoint,
  sandboxStatus,
  type ToolSettings,
} from '../src/index.js';
import { tempDir } from './helpers.js';

/**
 * A `node:` tool from a user's skill folder, under the sandbox (issue 28.6): it wrote outside the working folder, read
 * `~/.birdie` and saw `OPENAI_API_KEY`. These tests run real bubblewrap; each confined run has an unconfined control
 * that shows the effect.
 */
async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    throw new Error(
      `the sandbox tests need a working bubblewrap: ${status.reason}. (on Debian/Ubuntu: apt-get install -y bubblewrap)`,
    );
  }
}

const PROBE = `import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
export function probe({ target, home }, context) {
  const seen = {};
  try { writeFileSync(target, 'escaped'); seen.write = 'written'; } catch (e) { seen.write = e.code; }
  try { seen.config = readFileSync(join(home, '.birdie', 'config.json'), 'utf8'); } catch (e) { seen.config = e.code; }
  seen.key = process.env.OPENAI_API_KEY ?? null;
  seen.files = context.files ? 'given' : 'none';
  seen.pid = process.pid;
  return seen;
}
export function here(_args, { cwd, env }) {
  writeFileSync('here.txt', 'here');
  return { cwd, process: process.cwd(), env };
}
export function fails() { throw new RangeError('out of range'); }
export function circular() { const o = {}; o.self = o; return o; }
export function big() { return 'z'.repeat(50000); }
export function chatty() { console.log('printed'); process.stdout.write('written\\n'); return 'result'; }
export function slow() { return new Promise((resolve) => setTimeout(() => resolve('late'), 60000)); }
export function withDefault({ n }) { return n; }
export const notAFunction = 1;
`;

let fakeHome: string;
let skillDir: string;
let work: string;
/** Outside /tmp (which the sandbox replaces with its own): there the read-only root is what stops a write. */
let persistent: string;
const saved = {
  HOME: process.env.HOME,
  BIRDIE_HOME: process.env.BIRDIE_HOME,
  OPENAI_API_KEY: process.env.OPENAI_API_KEY,
};

function restore(name: keyof typeof saved) {
  if (saved[name] === undefined) delete process.env[name];
  else process.env[name] = saved[name];
}

beforeAll(async () => {
  fakeHome = await tempDir('birdie-node-home-');
  work = await tempDir('birdie-node-work-');
  persistent = await mkdtemp(join('/var/tmp', 'birdie-node-sandbox-'));
  // a user skill: ~/.birdie/skills/probe, next to the user's config with an API key
  skillDir = join(fakeHome, '.birdie', 'skills', 'probe');
  await mkdir(skillDir, { recursive: true });
  await writeFile(join(fakeHome, '.birdie', 'config.json'), '{"provider":{"api_key":"sk-config"}}\n');
  await writeFile(join(skillDir, 'tools.mjs'), PROBE);
  await writeFile(join(skillDir, 'broken.mjs'), 'export const x = ;\n');
  await writeFile(join(fakeHome, 'outside.mjs'), 'export const run = () => "escaped";\n');
  await symlink(join(fakeHome, 'outside.mjs'), join(skillDir, 'link.mjs'));
  process.env.HOME = fakeHome;
  delete process.env.BIRDIE_HOME;
  process.env.OPENAI_API_KEY = 'sk-host-secret';
});

afterEach(() => {
  configureSandbox(undefined);
  configureNodeTools();
});

afterAll(async () => {
  for (const name of Object.keys(saved) as (keyof typeof saved)[]) restore(name);
  await rm(persistent, { recursive: true, force: true });
});

type Outcome =
  | { ok: true; output: string; truncated: boolean }
  | { ok: false; code: string; message: string };

async function call(
  entrypoint: string,
  args: Record<string, unknown>,
  options: RunOptions = {},
  settings: ToolSettings = {},
  dir = skillDir,
): Promise<Outcome> {
  try {
    const result = await resolveEntrypoint(entrypoint, { skillDir: dir, settings }).run(args, {
      cwd: work,
      ...options,
    });
    return { ok: true, output: result.output, truncated: result.truncated };
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

const probe = async (target: string, options: RunOptions = {}, settings: ToolSettings = {}) => {
  const outcome = await call('node:tools.mjs#probe', { target, home: fakeHome }, options, settings);
  expect(outcome).toMatchObject({ ok: true });
  return JSON.parse((outcome as { output: string }).output) as Record<string, unknown>;
};

/**
 * A write outside the working folder fails: read-only where the folder is shown (a system folder), absent where the
 * sandbox does not mount it at all (a temp folder elsewhere, the home).
 */
const NOT_WRITTEN = expect.stringMatching(/^(EROFS|ENOENT)$/);

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('a node: tool from a user skill folder, with the sandbox on', { timeout: 60_000 }, () => {
  it('the control: without the sandbox it writes outside, reads ~/.birdie and sees the host API key', async () => {
    const target = join(persistent, 'control.txt');
    const open = await probe(target);
    expect(open).toMatchObject({
      write: 'written',
      config: '{"provider":{"api_key":"sk-config"}}\n',
      key: 'sk-host-secret',
      pid: process.pid,
    });
    expect(await readFile(target, 'utf8')).toBe('escaped');
  });

  it("under configureSandbox('always') (birdie --sandbox) it runs in a sandboxed child: none of the three", async () => {
    await requireBubblewrap();
    configureSandbox('always');
    const target = join(persistent, 'always.txt');
    const confined = await probe(target);
    expect(confined).toMatchObject({ write: NOT_WRITTEN, config: 'ENOENT', key: null, files: 'none' });
    expect(confined.pid).not.toBe(process.pid);
    expect(await exists(target)).toBe(false);
  });

  it('a tool that declares sandbox: true is confined in the default mode too, and per call with RunOptions.sandbox', async () => {
    await requireBubblewrap();
    const declared = await probe(join(persistent, 'declared.txt'), {}, { sandbox: true });
    expect(declared).toMatchObject({ write: NOT_WRITTEN, config: 'ENOENT', key: null });
    const perCall = await probe(join(persistent, 'per-call.txt'), { sandbox: true });
    expect(perCall).toMatchObject({ write: NOT_WRITTEN, config: 'ENOENT', key: null });
  });

  it('writes in the working directory; gets cwd and the caller env as context; its process env is the allowlist', async () => {
    await requireBubblewrap();
    configureSandbox('always');
    const outcome = await call('node:tools.mjs#here', {}, { env: { UNITS: 'metric' } });
    expect(outcome).toMatchObject({ ok: true });
    expect(JSON.parse((outcome as { output: string }).output)).toEqual({
      cwd: work,
      process: work,
      env: { UNITS: 'metric' },
    });
    expect(await readFile(join(work, 'here.txt'), 'utf8')).toBe('here');
  });

  it('maps failures to the same codes as in-process: call-failed, module-not-found, export-not-found, bad-output, path-escape', async () => {
    await requireBubblewrap();
    for (const sandboxed of [false, true]) {
      configureSandbox(sandboxed ? 'always' : undefined);
      const thrown = await call('node:tools.mjs#fails', {});
      expect(thrown, String(sandboxed)).toMatchObject({
        ok: false,
        code: 'call-failed',
        message: expect.stringContaining('threw RangeError: out of range'),
      });
      expect(await call('node:broken.mjs#x', {})).toMatchObject({
        ok: false,
        code: 'module-not-found',
        message: expect.stringContaining('importing broken.mjs failed'),
      });
      expect(await call('node:missing.mjs#x', {})).toMatchObject({ ok: false, code: 'module-not-found' });
      expect(await call('node:tools.mjs#notAFunction', {})).toMatchObject({
        ok: false,
        code: 'export-not-found',
        message: expect.stringContaining("has no exported function 'notAFunction'"),
      });
      expect(await call('node:tools.mjs#circular', {})).toMatchObject({ ok: false, code: 'bad-output' });
      expect(await call('node:link.mjs#run', {})).toMatchObject({ ok: false, code: 'path-escape' });
    }
  });

  it('keeps the output cap, the timeout, defaults from the schema, and prints away from the result', async () => {
    await requireBubblewrap();
    configureSandbox('always');
    expect(await call('node:tools.mjs#big', {}, { maxOutputBytes: 100 })).toMatchObject({
      ok: true,
      truncated: true,
    });
    expect(await call('node:tools.mjs#chatty', {})).toEqual({ ok: true, output: 'result', truncated: false });
    expect(await call('node:tools.mjs#slow', {}, { timeoutMs: 1_500 })).toMatchObject({
      ok: false,
      code: 'timeout',
    });
    const withSchema = await resolveEntrypoint('node:tools.mjs#withDefault', {
      skillDir,
      schema: { type: 'object', properties: { n: { type: 'number', default: 7 } } },
    }).run({}, { cwd: work });
    expect(withSchema.output).toBe('7');
  });
});

describe("the application's own node: tools (configureNodeTools({ inProcess }))", { timeout: 60_000 }, () => {
  it('stay in-process under the sandbox, with the file access handle; other folders do not', async () => {
    await requireBubblewrap();
    configureSandbox('always');
    configureNodeTools({ inProcess: [join(fakeHome, '.birdie', 'skills')] });
    const files = {
      readTextFile: async () => 'text',
      writeTextFile: async () => {},
    };
    const own = await probe(join(persistent, 'own.txt'), { files });
    expect(own).toMatchObject({ files: 'given', pid: process.pid, key: 'sk-host-secret' });
    expect(confinementOf('node:tools.mjs#probe', {}, { skillDir })).toBe('in-process');
    expect(resolveEntrypoint('node:tools.mjs#probe', { skillDir }).confinement).toBe('in-process');

    configureNodeTools({ inProcess: [work] });
    const other = await probe(join(persistent, 'other.txt'), { files });
    expect(other).toMatchObject({ write: NOT_WRITTEN, key: null, files: 'none' });
    expect(confinementOf('node:tools.mjs#probe', {}, { skillDir })).toBe('sandbox');
  });

  it('confinementOf says how each node: tool runs now', () => {
    expect(confinementOf('node:tools.mjs#probe', {}, { skillDir })).toBe('none');
    expect(confinementOf('node:tools.mjs#probe', { sandbox: true }, { skillDir })).toBe('sandbox');
    configureSandbox('always');
    expect(confinementOf('node:tools.mjs#probe')).toBe('sandbox');
    expect(confinementOf(resolveEntrypoint('node:tools.mjs#probe', { skillDir }))).toBe('sandbox');
    configureNodeTools({ inProcess: [skillDir] });
    expect(confinementOf('node:tools.mjs#probe', {}, { skillDir })).toBe('in-process');
    configureSandbox(undefined);
    expect(confinementOf('node:tools.mjs#probe', {}, { skillDir })).toBe('in-process');
  });
});

describe('a sandboxed node: tool without bubblewrap', { timeout: 60_000 }, () => {
  it('is refused with sandbox-unavailable, and never runs in-process instead', async () => {
    const bin = await tempDir('birdie-node-nobwrap-');
    const savedPath = process.env.PATH;
    process.env.PATH = bin;
    configureSandbox('always');
    try {
      const target = join(persistent, 'nobwrap.txt');
      const outcome = await call('node:tools.mjs#probe', { target, home: fakeHome });
      expect(outcome).toMatchObject({
        ok: false,
        code: 'sandbox-unavailable',
        message: expect.stringContaining('it must run in the sandbox, and bubblewrap (bwrap) was not found'),
      });
      expect(await exists(target)).toBe(false);
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
