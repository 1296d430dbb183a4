import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isRuntimeError } from '../src/errors.js';
import type { Flags } from '../src/flags.js';
import { openRuntime, type Runtime } from '../src/runtime.js';
import { createSession } from '../src/session-start.js';
import { executeTurn } from '../src/turn.js';
import { tempHomeEachTest, userIo } from './helpers/temp-home.js';

// Reported by an embedder: `openRuntime(io, { agent: 'pirate' })` ran every turn with the default agent, and an
// unknown name was not refused either. The README lists `agent` as "the agent that answers".

const home = tempHomeEachTest();
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

const SCRIPT = fileURLToPath(new URL('./fixtures/shout.json', import.meta.url));

async function open(flags: Flags): Promise<Runtime> {
  await mkdir(join(home.path, '.birdie', 'agents'), { recursive: true });
  await writeFile(
    join(home.path, '.birdie', 'agents', 'pirate.md'),
    '---\nname: pirate\ndescription: Talks like a pirate.\n---\n\nYou are a pirate.\n',
  );
  const io = userIo(home.path, home.path, {
    PATH: process.env.PATH,
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: SCRIPT,
  });
  const rt = await openRuntime(io, flags);
  opened.push(rt);
  return rt;
}

const turn = (rt: Runtime, session: Awaited<ReturnType<typeof createSession>>, options = {}) =>
  executeTurn(rt, session, 'hello', {
    approval: 'never',
    waitMs: 0,
    signal: new AbortController().signal,
    handlers: { onEvent: () => {}, decide: async () => undefined },
    ...options,
  });

describe('the agent flag of openRuntime', () => {
  it('names who answers a new session, and the thread goes on with it', async () => {
    const rt = await open({ agent: 'pirate' });
    const session = await createSession(rt);
    expect((await turn(rt, session)).status).toBe('ok');
    expect(await rt.agent.currentAgent(session.id)).toBe('pirate');
    // A turn that names another agent still wins.
    const other = await createSession(rt);
    await turn(rt, other, { agent: '' });
    expect(await rt.agent.currentAgent(other.id)).toBeFalsy();
  });

  it('an unknown name is a usage error naming the agents, before anything runs', async () => {
    const error = await open({ agent: 'pirat' }).catch((e: unknown) => e);
    expect(isRuntimeError(error) && error.name).toBe('UsageError');
    expect((error as Error).message).toContain('no agent "pirat"');
    expect((error as Error).message).toContain('pirate');
  });
});
