import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Address {
  url: string;
  host: string;
  port: number;
}

/** Listens on `host:port` (0: any free port) and resolves with the address it got. */
export async function listenOn(server: Server, host: string, port: number): Promise<Address> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}`, host: address.address, port: address.port };
}

/** Stops accepting; resolves when every connection is gone (after `closeAllConnections` at the latest). */
export function stopListening(server: Server): Promise<void> {
  return new Promise<void>((resolve) => server.close(() => resolve()));
}
