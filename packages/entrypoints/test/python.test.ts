import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EntrypointError, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let root: string;
let skillDir: string;

// Version managers (pyenv) put a shell-script shim first on PATH that costs ~0.3 s per start; the tests
// put the interpreter's own directory first instead. The entrypoint still finds python3 through PATH.
const realPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).trim();
process.env.PATH = `${dirname(realPython)}${delimiter}${process.env.PATH ?? ''}`;

beforeAll(async () => {
  root = await tempDir();
  skillDir = join(root, 'weather');
  await mkdir(join(skillDir, 'pkg'), { recursive: true });
  await writeFile(
    join(skillDir, 'tools.py'),
    `import asyncio, os
def get_forecast(city, days=3):
    print("chatter that must not corrupt the result")
    return {"city": city, "days": days, "secret": os.environ.get("BIRDIE_TEST_SECRET_API_KEY")}
def echo(text):
    return text
async def later(n):
    await asyncio.sleep(0)
    return [n, n * 2]
def fails():
    raise KeyError("station")
def spin():
    import time
    time.sleep(100)
def with_children():
    import subprocess
    subprocess.run(["echo", "from a child"])
    os.system("echo from os.system")
    return {"status": "ok"}
def not_a_number():
    return float("nan")
`,
  );
  await writeFile(
    join(skillDir, 'reads_stdin.py'),
    `import subprocess
def child_reads():
    return subprocess.run(["head", "-c", "200"], stdout=subprocess.PIPE, timeout=60).stdout.decode()
AT_IMPORT = child_reads()
def run(text):
    return {"text": text, "at_import": AT_IMPORT, "in_call": child_reads()}
`,
  );
  await writeFile(join(skillDir, 'pkg', '__init__.py'), '');
  await writeFile(join(skillDir, 'pkg', 'mod.py'), 'def run():\n    return "from a package"\n');
  await writeFile(join(root, 'outside.py'), 'def run():\n    return "escaped"\n');
  await symlink(join(root, 'outside.py'), join(skillDir, 'linked.py'));
});

async function failure(promise: Promise<unknown>): Promise<EntrypointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  return error as EntrypointError;
}

describe('python:', () => {
  it('calls the function with keyword args from stdin and returns its JSON result; env is allowlisted', async () => {
    process.env.BIRDIE_TEST_SECRET_API_KEY = 'canary';
    try {
      const ep = resolveEntrypoint('python:tools.get_forecast', {
        skillDir,
        schema: { properties: { days: { default: 3 } } },
      });
      expect(ep).toMatchObject({ scheme: 'python', raw: false, placeholders: [] });
      const result = await ep.run({ city: 'Gr\'a"z $(touch x)' });
      expect(JSON.parse(result.output)).toEqual({ city: 'Gr\'a"z $(touch x)', days: 3, secret: null });
      expect(result.exitCode).toBe(0);
    } finally {
      delete process.env.BIRDIE_TEST_SECRET_API_KEY;
    }
  });

  // Exploratory report (skill author) #4: a function that started a child process (subprocess.run, os.system) failed
  // with "exited with code 0 without a result": the child wrote into the result's channel, file descriptor 1.
  it("a child process's output goes to stderr, as print() does: the result arrives whole", async () => {
    const result = await resolveEntrypoint('python:tools.with_children', { skillDir }).run({});
    expect(JSON.parse(result.output)).toEqual({ status: 'ok' });
    expect(result.exitCode).toBe(0);
  });

  // A child process the module's top level started with the inherited stdin (the arguments' pipe) read the
  // arguments away: the function was called without them.
  it('a child process reads nothing on stdin, at import or in the call: the arguments reach the function', async () => {
    const result = await resolveEntrypoint('python:reads_stdin.run', { skillDir }).run({
      text: 'the arguments',
    });
    expect(JSON.parse(result.output)).toEqual({ text: 'the arguments', at_import: '', in_call: '' });
  });

  it('a result JSON cannot carry (NaN) is a call failure that says so, not "without a result"', async () => {
    const error = await failure(resolveEntrypoint('python:tools.not_a_number', { skillDir }).run({}));
    expect(error.code).toBe('call-failed');
    expect(error.message).toContain('ValueError: Out of range float values are not JSON compliant');
  });

  it('returns strings as they are, awaits coroutines, and imports from packages', async () => {
    expect(
      (await resolveEntrypoint('python:tools.echo', { skillDir }).run({ text: 'ünï\ncode' })).output,
    ).toBe('ünï\ncode');
    expect(
      JSON.parse((await resolveEntrypoint('python:tools.later', { skillDir }).run({ n: 21 })).output),
    ).toEqual([21, 42]);
    expect((await resolveEntrypoint('python:pkg.mod.run', { skillDir }).run({})).output).toBe(
      'from a package',
    );
  });

  it('accepts module names written for the Python original (birdie.skills.<skill>.<module>)', async () => {
    const ep = resolveEntrypoint('python:birdie.skills.weather.tools.echo', { skillDir });
    expect((await ep.run({ text: 'compatible' })).output).toBe('compatible');
  });

  it.each([
    ['python:os.system', 'path-escape'],
    ['python:subprocess.run', 'path-escape'],
    ['python:json.loads', 'path-escape'],
    ['python:nowhere.run', 'module-not-found'],
    ['python:linked.run', 'path-escape'],
    ['python:tools.missing', 'export-not-found'],
  ])('refuses %s (%s)', async (entrypoint, code) => {
    const error = await failure(resolveEntrypoint(entrypoint, { skillDir }).run({ command: 'touch PWNED' }));
    expect(error.code).toBe(code);
  });

  it.each(['python:tools', 'python:../x.run', 'python:a.b-c', 'python:tools.run()'])(
    'refuses %j at resolve time',
    (ep) => {
      expect(() => resolveEntrypoint(ep, { skillDir })).toThrow(
        expect.objectContaining({ code: 'bad-entrypoint' }),
      );
    },
  );

  it('reports an exception as call-failed with the traceback tail', async () => {
    const error = await failure(resolveEntrypoint('python:tools.fails', { skillDir }).run({}));
    expect(error.code).toBe('call-failed');
    expect(error.message).toContain("KeyError: 'station'");
    expect(error.message).toContain('Traceback');
  });

  it('times out and kills python', async () => {
    const error = await failure(
      resolveEntrypoint('python:tools.spin', { skillDir }).run({}, { timeoutMs: 1_500, killGraceMs: 200 }),
    );
    expect(error.code).toBe('timeout');
  });

  it('says clearly when python3 is missing from PATH', async () => {
    const error = await failure(
      resolveEntrypoint('python:tools.echo', { skillDir }).run({ text: 'x' }, { env: { PATH: root } }),
    );
    expect(error.code).toBe('python-missing');
    expect(error.message).toContain(`python3 was not found on PATH (${root})`);
  });
});
