import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asUnprivileged } from '@birdie/test-utils';
import ts from 'typescript';
import { isAlive, sleepMs, tempDir } from './helpers.js';

const SRC = new URL('../src/', import.meta.url);
let compiled: Promise<string> | undefined;

/**
 * The package's current source compiled to plain ES modules in a temp dir, so that a real Node process (a
 * stand-in for birdie) can import it without a build step. Returns the path of its `index.js`.
 */
export function compiledPackage(): Promise<string> {
  compiled ??= (async () => {
    const out = await tempDir('birdie-entrypoints-js-');
    await chmod(out, 0o755);
    const files = (await readdir(SRC)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    for (const file of files) {
      const source = await readFile(new URL(file, SRC), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      await writeFile(join(out, file.replace(/\.ts$/, '.js')), outputText);
    }
    return join(out, 'index.js');
  })();
  return compiled;
}

export interface Parent {
  child: ChildProcess;
  /** Everything the parent printed so far. */
  output(): string;
  /** Resolves with the parent's output once it contains `text`. */
  waitFor(text: string, ms?: number): Promise<string>;
  /**
   * Resolves with the exit code once the parent has exited, also when it did before this was called: `waitFor` polls,
   * so a parent that prints and exits may be gone (its `exit` event emitted) by the time the caller asks.
   */
  exited(): Promise<number | null>;
}

/**
 * Starts `node script.mjs`, where the script is `body` after an import of the compiled package as `entrypoints`.
 * `unprivileged` runs it without root's privileges: as `nobody` when the tests run as root.
 */
export async function startParent(
  dir: string,
  body: string,
  options: { env?: Record<string, string>; unprivileged?: boolean } = {},
): Promise<Parent> {
  const index = await compiledPackage();
  const script = join(dir, `parent-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`);
  await mkdir(dir, { recursive: true });
  await writeFile(script, `import * as entrypoints from ${JSON.stringify(index)};\n${body}\n`);
  await chmod(script, 0o644);
  const argv = [process.execPath, script];
  const asUser = options.unprivileged ? [...asUnprivileged(), ...argv] : argv;
  const child = spawn(asUser[0]!, asUser.slice(1), {
    cwd: dir,
    // the guard as a user gets it, whatever the shell running the tests says (a test may ask for another mode)
    env: { ...process.env, BIRDIE_PROCESS_GUARD: 'auto', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk;
  });
  return {
    child,
    output: () => text,
    async waitFor(needle: string, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!text.includes(needle)) {
        if (Date.now() > deadline || child.exitCode !== null) {
          throw new Error(`the parent never printed ${JSON.stringify(needle)}; it printed:\n${text}`);
        }
        await sleepMs(20);
      }
      return text;
    },
    exited: () => exit,
  };
}

interface ProcInfo {
  pid: number;
  ppid: number;
}

async function procInfo(pid: number): Promise<ProcInfo | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(fields[1]) };
}

/** Every process below `root` (children, grandchildren, …), read from /proc. */
export async function descendants(root: number): Promise<number[]> {
  const all = (await readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
  const infos = (await Promise.all(all.map(procInfo))).filter((i): i is ProcInfo => i !== undefined);
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = infos.filter((i) => frontier.includes(i.ppid)).map((i) => i.pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Those of `pids` that can still run code (see `isAlive`). */
export async function stillRunning(pids: readonly number[]): Promise<number[]> {
  const alive = await Promise.all(pids.map(isAlive));
  return pids.filter((_, k) => alive[k]);
}
