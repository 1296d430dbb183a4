import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTECTED_WORKSPACE_PATHS } from '../src/index.js';
import { sleepMs, tempDir } from './helpers.js';
import { startParent } from './parent-process.js';
import { exists, requireBubblewrap } from './sandbox-call.js';

/**
 * A sandboxed call keeps its working directory's protected names read-only; one that does not exist yet gets an
 * empty, read-only stand-in for the call (an empty `.git` folder, an empty `.envrc` …), removed when the call ends.
 * A birdie process killed during the call (a server's worker SIGKILLed, an OOM kill) never removes them: stop 69's
 * report found them left in the user's workspace, where they count toward the quota. The next birdie process of the
 * same birdie home removes those of a process that is gone, and only those.
 */

/** A parent that runs one sandboxed call in `cwd` which never ends. */
const blockedCall = (cwd: string) => `
const ep = entrypoints.resolveEntrypoint('bash:sleep 300', { skillDir: ${JSON.stringify(cwd)}, settings: { sandbox: true } });
ep.run({}, { cwd: ${JSON.stringify(cwd)}, timeoutMs: 600000 }).catch((e) => console.log('failed ' + e.code + ' ' + e.message));
setInterval(() => {}, 1000);
`;

/** A parent that runs one short sandboxed call in `cwd` and prints what it gave. */
const shortCall = (cwd: string) => `
const ep = entrypoints.resolveEntrypoint('bash:echo done', { skillDir: ${JSON.stringify(cwd)}, settings: { sandbox: true } });
const r = await ep.run({}, { cwd: ${JSON.stringify(cwd)}, timeoutMs: 60000 }).catch((e) => ({ output: 'failed ' + e.code + ' ' + e.message }));
console.log('result ' + r.output.trim());
`;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let k = 0; k < 1500; k++) {
    if (await check()) return;
    await sleepMs(20);
  }
  throw new Error(`never: ${what}`);
}

/**
 * A parent that runs a short sandboxed call in `elsewhere` first (its one sweep of the ledger happens then), prints
 * `swept`, waits for `trigger` to exist, then runs a sandboxed call in `cwd` that never ends.
 */
const laterCall = (elsewhere: string, trigger: string, cwd: string) => `
import { existsSync } from 'node:fs';
const first = entrypoints.resolveEntrypoint('bash:echo first', { skillDir: ${JSON.stringify(elsewhere)}, settings: { sandbox: true } });
await first.run({}, { cwd: ${JSON.stringify(elsewhere)}, timeoutMs: 60000 });
console.log('swept');
while (!existsSync(${JSON.stringify(trigger)})) await new Promise((resolve) => setTimeout(resolve, 20));
const ep = entrypoints.resolveEntrypoint('bash:sleep 300', { skillDir: ${JSON.stringify(cwd)}, settings: { sandbox: true } });
ep.run({}, { cwd: ${JSON.stringify(cwd)}, timeoutMs: 600000 }).catch((e) => console.log('failed ' + e.code + ' ' + e.message));
setInterval(() => {}, 1000);
`;

describe('stand-ins left by a killed process', { timeout: 180_000 }, () => {
  it('are removed by a later process of the same birdie home, not while a living process uses them', async () => {
    await requireBubblewrap();
    const root = await tempDir('birdie-stand-ins-');
    await chmod(root, 0o755);
    const home = join(root, 'home');
    const work = join(root, 'work');
    const elsewhere = join(root, 'elsewhere');
    await mkdir(work);
    await mkdir(elsewhere);
    await writeFile(join(work, 'notes.txt'), 'mine\n');
    // The user's own empty folder, made before any call: never birdie's to remove.
    await mkdir(join(work, '.idea'));
    const env = { BIRDIE_HOME: home };
    const trigger = join(root, 'go');

    const killed = await startParent(root, blockedCall(work), { env });
    // The call makes its stand-ins one after another: the listing is the call's once the last of them is there (with
    // the first one alone, a loaded machine could list the folder between two of them).
    const allThere = async () =>
      (await Promise.all(PROTECTED_WORKSPACE_PATHS.map((name) => exists(join(work, name))))).every(Boolean);
    await until(allThere, `the call made its stand-ins (${killed.output()})`);
    const during = (await readdir(work)).sort();
    expect(during).toEqual(expect.arrayContaining(['.git', '.envrc', '.claude', '.idea', 'notes.txt']));

    // While that process lives, another process's sweep (its first call, elsewhere) leaves its stand-ins alone.
    const borrower = await startParent(root, laterCall(elsewhere, trigger, work), { env });
    await borrower.waitFor('swept', 60_000);
    expect((await readdir(work)).sort()).toEqual(during);

    killed.child.kill('SIGKILL');
    await killed.exited();
    // What the report saw: the killed process's stand-ins are still there.
    expect((await readdir(work)).sort()).toEqual(during);

    // The other process (it has swept already) now runs a call in that folder: it binds the stand-ins it finds there.
    // A sweep meanwhile must leave them: removing one would unmount it in that call's sandbox (review of 2dddda7a).
    await writeFile(trigger, '');
    const ledger = join(home, 'sandbox', 'stand-ins');
    await until(async () => {
      for (const name of await readdir(ledger).catch(() => [] as string[]))
        if ((await readFile(join(ledger, name), 'utf8').catch(() => '')).includes('"borrowed":true'))
          return true;
      return false;
    }, `the other process binds them (${borrower.output()})`);
    const sweeper = await startParent(root, shortCall(elsewhere), { env });
    await sweeper.waitFor('result done', 60_000);
    await sweeper.exited();
    expect((await readdir(work)).sort()).toEqual(during);
    borrower.child.kill('SIGKILL');
    await borrower.exited();

    // The user writes into one of them meanwhile: it is the user's now.
    await chmod(join(work, '.claude'), 0o755);
    await writeFile(join(work, '.claude', 'settings.json'), '{}\n');

    const next = await startParent(root, shortCall(elsewhere), { env });
    await next.waitFor('result done', 60_000);
    await next.exited();
    expect((await readdir(work)).sort()).toEqual(['.claude', '.idea', 'notes.txt']);
    expect(await readdir(join(work, '.claude'))).toEqual(['settings.json']);
  });
});
