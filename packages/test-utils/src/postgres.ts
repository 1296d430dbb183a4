import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresServer {
  /** `postgresql://birdie@/postgres?host=SOCKET_DIR`: the server's own database, over its unix socket. */
  url: string;
  /** A URL for another database of the same server. */
  urlFor(database: string): string;
  /** Folder of the data directory, the socket and the log. */
  dir: string;
  /** Stops the server (immediate shutdown) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stops the server as a crash would (`pg_ctl stop -m immediate`: every connection is cut, nothing is flushed)
   * and keeps its data, so that `start` brings the same database back. For tests of a database that goes away.
   */
  crash(): Promise<void>;
  /** Starts the server again after `crash`, on the same socket, with the same data and settings. */
  start(): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Server settings (`-c name=value`). Default: durability off (`fsync`, `synchronous_commit`,
   * `full_page_writes`), which is what a test wants; a benchmark passes `{}` to keep PostgreSQL's defaults.
   */
  settings?: Record<string, string>;
}

const FAST: Record<string, string> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/**
 * For a server a test `crash`es: a commit is in the WAL (the operating system's cache; the machine does not crash)
 * before it returns, so an immediate stop loses nothing committed. With the default settings the last commits
 * (`synchronous_commit: off`) may be lost, and a test would see rows it made vanish.
 */
export const CRASH_SAFE_SETTINGS: Record<string, string> = { ...FAST, synchronous_commit: 'on' };

/** Where the cause of a failed start is explained, so that a test fails with advice rather than a stack. */
export class PostgresUnavailableError extends Error {
  override readonly name = 'PostgresUnavailableError';
}

/**
 * Starts a throw-away PostgreSQL server: `initdb` into a temporary folder, then `pg_ctl start` listening on a unix
 * socket in that folder only (no TCP port, so parallel runs never collide). As root it runs the server as the
 * unprivileged `postgres` user (`initdb` refuses root) through `runuser`. Fails with `PostgresUnavailableError` saying
 * what is missing (the binaries, the user) and how to get it.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const bin = findBinaries();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'birdie-pg-'));
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
  let started = false;
  let flags = '';
  const crash = async () => {
    if (!started) return;
    started = false;
    await as(bin.pgCtl, ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => undefined);
  };
  const stop = async () => {
    await crash();
    rmSync(dir, { recursive: true, force: true });
  };
  const start = async () => {
    if (started) return;
    await as(bin.pgCtl, ['start', '-D', data, '-l', log, '-w', '-t', '60', '-o', flags]);
    started = true;
  };
  try {
    await as(bin.initdb, [
      '-D',
      data,
      '-U',
      'birdie',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const settings = {
      ...(options.settings ?? FAST),
      listen_addresses: "''",
      unix_socket_directories: `'${dir}'`,
    };
    flags = Object.entries(settings)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' ');
    await start();
  } catch (error) {
    const detail = [(error as { stderr?: string }).stderr, tail(log)].filter(Boolean).join('\n');
    await stop();
    throw new PostgresUnavailableError(
      `could not start a test PostgreSQL server with ${bin.initdb}: ${(error as Error).message}${detail ? `\n${detail}` : ''}`,
      { cause: error },
    );
  }
  const urlFor = (database: string) => `postgresql://birdie@/${database}?host=${encodeURIComponent(dir)}`;
  return { url: urlFor('postgres'), urlFor, dir, stop, crash, start };
}

/** `initdb` and `pg_ctl` on PATH, else the newest of Debian's `/usr/lib/postgresql/N/bin`. */
function findBinaries(): { initdb: string; pgCtl: string } {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  const found = dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!found) {
    throw new PostgresUnavailableError(
      'PostgreSQL is not installed: no initdb and pg_ctl on PATH or in /usr/lib/postgresql/*/bin. ' +
        'Install it (Debian: apt-get install -y postgresql) to run the PostgreSQL tests.',
    );
  }
  return { initdb: join(found, 'initdb'), pgCtl: join(found, 'pg_ctl') };
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new PostgresUnavailableError(
      'running as root, and there is no `postgres` user to run the test server as (initdb refuses root); ' +
        'installing PostgreSQL (apt-get install -y postgresql) creates it',
    );
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}
