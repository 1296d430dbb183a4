import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a listening server, for the browser tests of a worker that dies: `cut()` drops every open
 * connection (what a killed `birdie serve` does to its streams), `down()` refuses new ones until `up()` (the time the
 * worker takes to come back).
 */
export interface CutProxy {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  cut(): void;
  down(): void;
  up(): void;
  /** Connections refused while down. */
  refused: number;
  close(): Promise<void>;
}

export async function cutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let refusing = false;
  const proxy = {} as CutProxy;
  proxy.refused = 0;
  const server: Server = createServer((client) => {
    if (refusing) {
      proxy.refused += 1;
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: hostname, port: Number(port) });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  proxy.url = `http://127.0.0.1:${address.port}`;
  proxy.cut = () => {
    for (const socket of open) socket.destroy();
  };
  proxy.down = () => {
    refusing = true;
  };
  proxy.up = () => {
    refusing = false;
  };
  proxy.close = () => {
    proxy.cut();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
