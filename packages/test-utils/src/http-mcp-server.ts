import { type ChildProcess, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';

/** A port free on 127.0.0.1 a moment ago (nothing listens there until someone binds it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export interface HttpMcpServer {
  /** Its streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  port: number;
  child: ChildProcess;
  /** Kills it (SIGKILL) and waits until it has exited. */
  stop(): Promise<void>;
}

/**
 * An MCP server script over streamable HTTP, as `@modelcontextprotocol/server-everything` runs it
 * (`node SCRIPT streamableHttp`, `PORT` in its environment), once it said on stderr that it listens. `port`: a given
 * one (to start it again on the same address), else a free one.
 */
export async function startHttpMcpServer(
  script: string,
  options: { port?: number } = {},
): Promise<HttpMcpServer> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [script, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      said += chunk;
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it listened: ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
