import { spawnSync } from 'node:child_process';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { STARTED_TOOL_RESULT } from '@birdie/graph';
import { asUnprivileged } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie, type Finished } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { fileSizeLimit, type MountNamespace, readOnlyFolder, smallDisk } from './helpers/mounts.js';
import {
  answers,
  jsonLines,
  type ShownMessage,
  STORE_SKILLS,
  script,
  sessionIdOf,
} from './helpers/sessions.js';

// Issue 21, defect 4: a full disk, a file-size limit, a read-only folder. Real even as root (CI): a small tmpfs or a
// read-only bind mount in a private mount namespace, `ulimit -f`, or the command run as nobody. Each failure has one
// message, naming the file and the fix, the same for a new session and an existing one, never a stack trace; a store
// that cannot be written still lists, shows and logs.

let box: Sandbox;
let namespace: MountNamespace | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  namespace?.close();
  namespace = undefined;
  await box.cleanup();
});

/** Runs birdie under `wrap` (a mount namespace, another user, a limit). */
const cli = (args: string[], wrap: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd, wrap });

/** One turn with a tool call and an answer; `--json` only for the seed, whose session id it reads. */
async function turn(token: string, wrap: string[] = [], id?: string, tool?: object, json = false) {
  const call = tool ?? {
    name: 'append_token',
    args: { delay: '0', token, file: join(box.dir.path, 'effects.txt') },
  };
  const env = await script(box.dir.path, token, [{ tool_calls: [call] }, { text: `answer ${token}` }]);
  const session = id ? ['--session-id', id] : [];
  const format = json ? ['--json'] : [];
  return cli(['run', ...format, '--skills-dir', STORE_SKILLS, ...session, `prompt ${token}`], wrap, env);
}

/** The one `birdie:` line of a failed command; nothing else of birdie's own on stderr, no stack trace. */
function failureLine(result: Finished): string {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).not.toMatch(/ {4}at |unexpected error|internal/);
  const lines = result.stderr.split('\n').filter((line) => line.startsWith('birdie:'));
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0]!;
}

/** A new session and an existing one fail with exactly `expected`. */
async function expectWritesRefused(wrap: string[], id: string, expected: string) {
  const [fresh, existing] = [await turn('new', wrap), await turn('again', wrap, id)];
  expect(failureLine(fresh)).toBe(expected);
  expect(failureLine(existing)).toBe(expected);
}

/** `sessions list`, `sessions show` and `logs` work and show the seeded turn. */
async function expectReadable(wrap: string[], id: string, turns = 1) {
  const list = await cli(['sessions', 'list', '--json'], wrap);
  expect(list, list.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(jsonLines(list.stdout).map((s) => s.id)).toContain(id);
  const shown = await cli(['sessions', 'show', id, '--json'], wrap);
  expect(shown, shown.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(jsonLines<ShownMessage>(shown.stdout).slice(0, 4)).toEqual([
    expect.objectContaining({ role: 'human', content: 'prompt seed' }),
    expect.objectContaining({ role: 'ai', tool_calls: [expect.objectContaining({ name: 'append_token' })] }),
    expect.objectContaining({ role: 'tool', content: 'appended seed\n' }),
    expect.objectContaining({ role: 'ai', content: 'answer seed' }),
  ]);
  const text = await cli(['sessions', 'show', id], wrap);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain('answer seed');
  const logs = await cli(['logs', '--session', id, '--json'], wrap);
  expect(logs, logs.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(jsonLines<{ status: string }>(logs.stdout).length).toBeGreaterThanOrEqual(turns);
  const table = await cli(['logs'], wrap);
  expect(table.code).toBe(0);
  expect(table.stdout).toContain(id);
}

async function seed(wrap: string[] = []): Promise<string> {
  const first = await turn('seed', wrap, undefined, undefined, true);
  expect(first.code, first.stderr).toBe(0);
  return sessionIdOf(first.stdout);
}

describe.runIf(process.platform === 'linux')('disks and permissions', { timeout: 120_000 }, () => {
  it('a full disk (a 2 MB tmpfs): one message for a new and an existing session; reads work; freeing space resumes', async () => {
    namespace = await smallDisk(box.home, '2m');
    const inside = namespace.wrap(box.cwd);
    const id = await seed(inside);
    const filler = join(box.home, 'filler');
    const fill = () =>
      spawnSync(inside[0]!, [...inside.slice(1), 'sh', '-c', 'cat /dev/zero > "$1"', 'sh', filler]);
    const free = () => spawnSync(inside[0]!, [...inside.slice(1), 'rm', '-f', filler]);
    fill();

    const file = join(box.home, 'birdie.db');
    const full = `birdie: the disk holding ${file} is full (0 B free); the last saved step is intact (free space on the disk that holds ${box.home}, then try again)`;
    await expectWritesRefused(inside, id, full);
    await expectReadable(inside, id);

    // The disk fills up during a turn (the tool fills it): the same message; the call ran, so after space is freed
    // the history says its result is unknown (never "Not executed") and the run log agrees.
    free();
    const during = await turn('fill', inside, id, { name: 'fill_disk', args: { file: filler } });
    expect(failureLine(during)).toBe(full);
    free();
    const resumed = await turn('after', inside, id);
    expect(resumed.code, resumed.stderr).toBe(0);
    const messages = jsonLines<ShownMessage>((await cli(['sessions', 'show', id, '--json'], inside)).stdout);
    const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.name === 'fill_disk')!;
    expect(answers(messages).get(call.id)?.content).toBe(STARTED_TOOL_RESULT);
    const runs = jsonLines<{ toolCalls: { callId: string; resultUnknown: boolean }[] }>(
      (await cli(['logs', '--session', id, '--json'], inside)).stdout,
    );
    expect(runs.flatMap((r) => r.toolCalls).find((t) => t.callId === call.id)).toMatchObject({
      resultUnknown: true,
    });
    expect(messages.at(-1)).toMatchObject({ role: 'ai', content: 'answer after' });
  });

  it('a file-size limit (ulimit -f): one message for a new and an existing session, the process is not killed', async () => {
    const id = await seed();
    const limited = fileSizeLimit(64);
    // What the limit is in bytes depends on the shell's block size: ask the kernel, as birdie does.
    const limits = spawnSync(limited[0]!, [...limited.slice(1), 'cat', '/proc/self/limits'], {
      encoding: 'utf8',
    });
    const bytes = Number(/^Max file size\s+(\d+)/m.exec(limits.stdout)?.[1]);
    expect(bytes).toBeLessThan(1024 * 1024);
    const file = join(box.home, 'birdie.db');
    await expectWritesRefused(
      limited,
      id,
      `birdie: ${file} reached the file-size limit of ${(bytes / 1024).toFixed(0)} KiB of this process (ulimit -f); the last saved step is intact (raise the limit with \`ulimit -f unlimited\` before starting birdie, or delete old sessions)`,
    );
    await expectReadable(limited, id);
  });

  it('a read-only folder (a read-only bind mount): one message for a new and an existing session; list, show and logs work', async () => {
    const id = await seed();
    namespace = await readOnlyFolder(box.home);
    const inside = namespace.wrap(box.cwd);
    const file = join(box.home, 'birdie.db');
    const refused = `birdie: cannot write ${file}: it is on a read-only file system (remount the file system of ${box.home} read-write, or point BIRDIE_HOME at a writable folder and move ${file} there)`;
    await expectWritesRefused(inside, id, refused);
    await expectReadable(inside, id);
    for (const args of [
      ['sessions', 'delete', id],
      ['sessions', 'repair', id],
    ])
      expect(failureLine(await cli(args, inside))).toBe(refused);
    const doctor = await cli(['doctor'], inside);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain(
      `read-only: it is on a read-only file system (remount the file system of ${box.home} read-write`,
    );
  });

  it('a chmod 555 folder, as another user (root writes into it anyway): one message naming chmod; reads work', async () => {
    const id = await seed();
    // nobody may enter the sandbox and read the file, but not write the folder that holds it.
    await Promise.all([box.dir.path, box.cwd, join(box.dir.path, 'bundled')].map((d) => chmod(d, 0o755)));
    await chmod(join(box.home, 'birdie.db'), 0o666);
    await chmod(box.home, 0o555);
    expect((await readdir(box.home)).sort()).toEqual(['birdie.db', 'sessions']);
    const file = join(box.home, 'birdie.db');
    const asNobody = asUnprivileged();
    await expectWritesRefused(
      asNobody,
      id,
      `birdie: cannot write ${file}: its folder ${box.home} is not writable (SQLite keeps ${file}-wal and ${file}-shm beside it) (chmod u+w ${box.home}; it must belong to the user running birdie)`,
    );
    await expectReadable(asNobody, id);
  });
});
