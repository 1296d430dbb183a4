import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Servers that stop answering without closing anything, as a frozen PostgreSQL or a network that drops packets
// does: no reset, no answer. Both listen on a unix socket named as PostgreSQL's, so a URL's `host=` can point at them.

export interface SilentServer {
  /** A URL for `database` of the server behind it (user `birdie`, as @birdie/test-utils' servers). */
  urlFor(database: string): string;
  close(): Promise<void>;
}

export interface FreezableProxy extends SilentServer {
  /** From now on nothing more is forwarded either way, on every connection, open or new; none is closed. */
  freeze(): void;
  /** Only the connections open now are frozen; new ones work (a server that answers again, its old sockets dead). */
  freezeOpenConnections(): void;
}

function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'birdie-silent-'));
  const server = createServer(onConnection);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(join(dir, '.s.PGSQL.5432'), () => resolve({ server, dir }));
  });
}

function closer(server: Server, dir: string, sockets: Set<Socket>): () => Promise<void> {
  return async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
}

const urlAt = (dir: string) => (database: string) =>
  `postgresql://birdie@/${database}?host=${encodeURIComponent(dir)}`;

/** Accepts connections and never says anything. */
export async function blackhole(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const { server, dir } = await listen((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  return { urlFor: urlAt(dir), close: closer(server, dir, sockets) };
}

/** Forwards to the PostgreSQL server listening in `targetDir` until `freeze()`. */
export async function freezableProxy(targetDir: string): Promise<FreezableProxy> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const pairs = new Set<{ frozen: boolean }>();
  const { server, dir } = await listen((client) => {
    const upstream = createConnection(join(targetDir, '.s.PGSQL.5432'));
    const pair = { frozen: false };
    pairs.add(pair);
    const open = () => !frozen && !pair.frozen;
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('error', () => {});
      from.on('data', (chunk) => {
        if (open()) to.write(chunk);
      });
      from.on('end', () => {
        if (open()) to.end();
      });
    }
  });
  return {
    urlFor: urlAt(dir),
    freeze() {
      frozen = true;
    },
    freezeOpenConnections() {
      for (const pair of pairs) pair.frozen = true;
    },
    close: closer(server, dir, sockets),
  };
}
