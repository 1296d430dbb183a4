import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Entrypoint, isEntrypointError, resolveEntrypoint } from '@birdie/entrypoints';
import { loadSkillFile, type Skill } from '@birdie/skill-parser';

/** The bundled skills folder (this package's root). */
export const skillsRoot = fileURLToPath(new URL('..', import.meta.url));

export async function loadBundledSkill(name: string): Promise<Skill> {
  const { skill, messages } = await loadSkillFile(`${skillsRoot}${name}/SKILL.md`);
  if (!skill) throw new Error(`${name} did not parse: ${messages.map(String).join('\n')}`);
  return skill;
}

/**
 * A skill tool's declared entrypoint, resolved exactly as the runtime does. `origin` swaps the declared URL's origin
 * for a local test server (only for `http:` entrypoints, whose URL is fixed in SKILL.md).
 */
export async function toolEntrypoint(
  skillName: string,
  toolName: string,
  origin?: { from: string; to: string },
): Promise<Entrypoint> {
  const skill = await loadBundledSkill(skillName);
  const tool = skill.tools.find((candidate) => candidate.name === toolName);
  if (!tool) throw new Error(`${skillName} has no tool ${toolName}`);
  const entrypoint = origin ? tool.entrypoint.replace(origin.from, origin.to) : tool.entrypoint;
  return resolveEntrypoint(entrypoint, { skillDir: skill.dir, schema: tool.schema });
}

/** The message of the entrypoint error `call` fails with; any other error is rethrown, and no failure is one. */
export async function entrypointRefusal(call: () => Promise<unknown>, what: string): Promise<string> {
  try {
    await call();
  } catch (error) {
    if (isEntrypointError(error)) return error.message;
    throw error;
  }
  throw new Error(`${what} was not refused`);
}

/** Every entry under `dir` with its content (`<dir>`, `<other>`): proof that nothing there changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = join(entry.parentPath, entry.name);
    result[full] = entry.isFile() ? await readFile(full, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return result;
}

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Route = (
  request: RecordedRequest,
) => { status?: number; type?: string; body: string; headers?: Record<string, string> } | undefined;

export interface LocalServer {
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on `host` (127.0.0.1) that answers from `route` and records every request it gets. */
export async function startLocalServer(route: Route, host = '127.0.0.1'): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: RecordedRequest = {
        method: incoming.method ?? 'GET',
        url: new URL(incoming.url ?? '/', 'http://127.0.0.1'),
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = route(request) ?? { status: 404, type: 'text/plain', body: 'not found' };
      outgoing.writeHead(answer.status ?? 200, {
        'content-type': answer.type ?? 'application/json; charset=utf-8',
        ...answer.headers,
      });
      outgoing.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
