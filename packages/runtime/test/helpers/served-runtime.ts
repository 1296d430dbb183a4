import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '@birdie/server';
import { openServeRuntime } from '../../src/server-runtime.js';

export interface ServedOptions {
  /** The scripted model's replies (its `$LLM_SCRIPT`). */
  replies: unknown[];
  /** Skills written into the home's `skills/` folder: folder name → `SKILL.md` text. */
  skills?: Record<string, string>;
  /** The server's `onError`. */
  onError?: (error: unknown) => void;
  /** Gets what stops the server, closes the runtime and removes the home, to run last first. */
  cleanups: Array<() => Promise<unknown>>;
}

/** What a served call answered. */
export interface Answer {
  status: number;
  text: string;
}

/**
 * `openServeRuntime` + `createServer` as the package README's example wires them, on a temp home with the scripted
 * model. `call` sends an API request as `alice`, with a token of hers.
 */
export async function servedRuntime(options: ServedOptions) {
  const home = await mkdtemp(join(tmpdir(), 'birdie-served-'));
  options.cleanups.push(() => rm(home, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(options.skills ?? {})) {
    await mkdir(join(home, 'skills', name), { recursive: true });
    await writeFile(join(home, 'skills', name, 'SKILL.md'), text);
  }
  const script = join(home, 'script.json');
  await writeFile(script, JSON.stringify({ replies: options.replies }));
  const io = {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      BIRDIE_HOME: home,
      LLM_VENDOR: 'scripted',
      LLM_SCRIPT: script,
    },
    cwd: home,
    stderr: process.stderr,
  };
  const { rt, runtime, workspaces, limits } = await openServeRuntime(io, {});
  options.cleanups.push(() => rt.close());
  const server = createServer({
    runtime,
    workspaces,
    limits,
    webRoot: false,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  options.cleanups.push(() => server.close({ graceMs: 0 }));
  const { token } = await rt.store.tokens.create('alice');
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await server.fetch(
      new Request(`http://birdie.test${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    return { status: response.status, text: await response.text() };
  };
  return { home, rt, call };
}
