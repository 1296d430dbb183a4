import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type BirdieProcess, birdie, startBirdie } from './birdie-process.js';

/** One `birdie serve` worker: its process, its address, and requests to it. */
export interface Worker {
  process: BirdieProcess;
  url: string;
  /** This worker's own BIRDIE_HOME: workers share only the database, like separate machines. */
  home: string;
  request(
    path: string,
    init?: { method?: string; token?: string; json?: unknown; body?: string },
  ): Promise<Response>;
}

/** Starts `birdie serve --port 0 ARGS` and waits for the address it prints. */
export async function startWorker(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; home: string; timeoutMs?: number },
): Promise<Worker> {
  await mkdir(options.home, { recursive: true });
  const process = startBirdie(['serve', '--port', '0', ...args], {
    env: { ...options.env, BIRDIE_HOME: options.home },
    cwd: options.cwd,
    // The process is killed after this long: a suite that keeps its worker longer says so.
    timeoutMs: options.timeoutMs ?? 180_000,
  });
  const [, url] = (await process.waitFor(
    'stdout',
    /listening on (http:\/\/\S+)/,
    30_000,
  )) as RegExpMatchArray;
  return {
    process,
    url: url!,
    home: options.home,
    request: (path, init = {}) => {
      const headers: Record<string, string> = {};
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      if (init.json !== undefined || init.body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${url}${path}`, {
        method: init.method ?? (init.json !== undefined || init.body !== undefined ? 'POST' : 'GET'),
        headers,
        ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
    },
  };
}

/** Starts `birdie mcp --http 0 ARGS` and waits for the address it prints; `stop` ends it (SIGTERM). */
export async function startMcpHttp(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<{ process: BirdieProcess; url: string; stop(): void }> {
  const process = startBirdie(['mcp', '--http', '0', ...args], { ...options, timeoutMs: 300_000 });
  const [, url] = (await process.waitFor(
    'stdout',
    /listening on (http:\/\/\S+)/,
    60_000,
  )) as RegExpMatchArray;
  return { process, url: url!, stop: () => process.kill('SIGTERM') };
}

/** A token of `user`, made with `birdie tokens create` against the shared database. */
export async function makeToken(
  user: string,
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<string> {
  const made = await birdie(['tokens', 'create', '--user', user], options);
  if (made.code !== 0) throw new Error(`tokens create failed: ${made.stderr}`);
  return made.stdout.trim();
}

/**
 * Makes a token of `user` (`birdie tokens create --json`) and revokes it (`birdie tokens revoke`), as an admin ends the
 * access of a user whose only token it was; each command must succeed.
 */
export async function makeRevokedToken(
  user: string,
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<void> {
  const made = await birdie(['tokens', 'create', '--user', user, '--json'], options);
  expect(made.code, made.stderr).toBe(0);
  const revoked = await birdie(['tokens', 'revoke', (JSON.parse(made.stdout) as { id: string }).id], options);
  expect(revoked.code, revoked.stderr).toBe(0);
}

export type StreamEvent = { type: string } & Record<string, unknown>;

/** The events of a server-sent event stream, read to its end. */
export async function streamEvents(response: Response): Promise<StreamEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as StreamEvent);
}

export function homeOf(root: string, name: string): string {
  return join(root, name);
}

/** Reads a stream until an event satisfies `until`, then cuts the connection: the events and the last `id:` seen. */
export async function readThenCut(
  response: Response,
  until: (e: StreamEvent) => boolean,
): Promise<{ events: StreamEvent[]; lastId: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before the event looked for:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const events: StreamEvent[] = [];
    let lastId = 0;
    for (const block of text.slice(0, text.lastIndexOf('\n\n')).split('\n\n')) {
      const id = /^id: (\d+)$/m.exec(block);
      if (id) lastId = Number(id[1]);
      const data = /^data: (.*)$/m.exec(block);
      if (data) events.push(JSON.parse(data[1]!) as StreamEvent);
      if (data && until(events.at(-1)!)) {
        await reader.cancel();
        return { events, lastId };
      }
    }
  }
}
