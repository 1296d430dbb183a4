// `node examples/quickstart.mjs` (after `pnpm build`): the API over a small runtime of your own — here an echo
// "agent" on a SQLite store; `birdie serve` gives it the real one (registry, providers, graph).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, createServer } from '@birdie/server';
import { openStore } from '@birdie/store';

const home = mkdtempSync(join(tmpdir(), 'birdie-server-example-'));
const store = openStore({ home });

/** @type {import('@birdie/server').ServeRuntime} */
const runtime = {
  store,
  provider: 'echo/1',
  createSession: (userId, { title }) =>
    store.sessions.create(userId, { perUser: true, ...(title ? { title } : {}) }),
  history: async () => ({ messages: [], grants: { enabled: [], disabled: [] } }),
  pendingApprovals: async () => [],
  deleteSession: (s) => store.sessions.delete(s.id, s.userId),
  // No skills or agents in this echo runtime: the endpoints still answer (an empty list; any change is refused).
  skills: async () => [],
  agents: async () => [],
  setSkills: async (_session, change) => {
    throw new ApiError('invalid-request', `no skill ${[...change.enable, ...change.disable][0]}`);
  },
  async runTurn(session, input, handlers) {
    // One writer per session: the store's lease (a second turn meanwhile gets 409).
    const lease = await store.leases.acquire(session.id, { waitMs: 0 });
    try {
      handlers.onLeased(lease);
      const text = typeof input === 'string' ? `You said: ${input}` : 'approved';
      handlers.onEvent({ type: 'token', text });
      handlers.onEvent({ type: 'done', status: 'ok' });
      await store.sessions.recordTurn(session.id, session.userId, { inputTokens: 3, outputTokens: 3 });
      return { status: 'ok', inputTokens: 3, outputTokens: 3 };
    } finally {
      await lease.release();
    }
  },
};

const server = createServer({ runtime, version: '1.0.0' });
const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
const { token } = await store.tokens.create('alice');
const call = (path, init = {}) =>
  fetch(`${url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

console.log('health', await (await fetch(`${url}/v1/health`)).json());
const session = await (await call('/v1/sessions', { method: 'POST', body: '{"title":"first"}' })).json();
console.log('session', session.id, session.title);
const turn = await call(`/v1/sessions/${session.id}/turns`, { method: 'POST', body: '{"prompt":"hello"}' });
console.log(turn.status, turn.headers.get('content-type'));
console.log((await turn.text()).trim());
const anonymous = await fetch(`${url}/v1/sessions`);
console.log(anonymous.status, await anonymous.json());
const bob = (await store.tokens.create('bob')).token;
const foreign = await fetch(`${url}/v1/sessions/${session.id}`, {
  headers: { authorization: `Bearer ${bob}` },
});
console.log(foreign.status, await foreign.json());
for (const path of ['/v1/skills', '/v1/agents']) {
  const list = await call(path);
  console.log(path.slice(4), list.status, JSON.stringify(await list.json()));
}
console.log('closed', await server.close({ graceMs: 1000 }));
await store.close();
rmSync(home, { recursive: true, force: true });
