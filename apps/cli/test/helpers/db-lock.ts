import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CLI_ROOT } from './env.js';

/** Another process holding a SQLite file's write lock (`BEGIN EXCLUSIVE`) until the test lets it go. */
export interface LockHolder {
  readonly pid: number;
  /** Whether it still runs (so still holds the lock): it lets go only when told. */
  alive(): boolean;
  /** Commits, closes the file and ends; resolves once it has exited. */
  release(): Promise<void>;
}

// It holds the lock until its stdin ends: the test ends it, and a test that dies takes it with it.
const HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('held\\n');
process.stdin.resume();
process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
`;

/** Starts a process that takes `file`'s write lock; resolves once it holds it. */
export async function holdWriteLock(file: string): Promise<LockHolder> {
  const sqlite = createRequire(join(CLI_ROOT, 'package.json')).resolve('better-sqlite3');
  const child: ChildProcess = spawn(process.execPath, ['-e', HOLDER, sqlite, file], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running = false;
      resolve();
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) resolve();
    });
    exited.then(() => reject(new Error(`the lock holder ended before it held the lock: ${stderr}`)));
  });
  return {
    pid: child.pid!,
    alive: () => running,
    release: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}
