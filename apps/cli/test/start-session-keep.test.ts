import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';
import { contentText, type OpenAiRecorder, openAiRecorder } from './helpers/openai-recorder.js';

let box: Sandbox;
let agents: string;
let server: OpenAiRecorder | undefined;
beforeEach(async () => {
  box = await sandbox();
  agents = join(box.dir.path, 'agents');
  await mkdir(agents);
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await box.cleanup();
});

const FACT = 'The code word is PELICAN.';

/**
 * A model with no memory of its own: it says the fact on the first request it answers, and on later ones repeats the
 * fact only when the conversation it is sent still holds it. The very first request fails with a 503 (a retry).
 */
function forgetfulModel(request: { messages: Array<{ role: string; content: unknown }> }, index: number) {
  if (index === 0) return { status: 503 };
  const said = request.messages.some(
    (m) => m.role === 'assistant' && contentText(m.content).includes('PELICAN'),
  );
  if (index === 1) return { text: FACT };
  return { text: said ? 'Earlier I said: PELICAN.' : 'I remember nothing.' };
}

async function runs() {
  const store = openStore({ home: box.home });
  try {
    return (await store.runs.list({ userId: 'tester', limit: 100 })).sort((a, b) => a.id - b.id);
  } finally {
    await store.close();
  }
}

describe('an agent with `session: keep` (birdie start against a local OpenAI-compatible server)', {
  timeout: 120_000,
}, () => {
  it('answers its third run with a fact from its first; the requests carry the history, its temperature and its retries', async () => {
    server = await openAiRecorder(forgetfulModel);
    await writeFile(
      join(agents, 'keeper.md'),
      '---\nname: keeper\ndescription: Remembers.\nevery: 1h\nprompt: Run your check.\nsession: keep\ntemperature: 0.3\nmax_retries: 2\n---\nYou keep notes.\n',
    );
    // The user's provider never retries; the agent's `max_retries: 2` is what gets past the first 503.
    const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
    const env = { ...box.env, LLM_PROVIDER_CONFIG: JSON.stringify(config) };
    for (let run = 1; run <= 3; run++) {
      const result = await birdie(['start', '--agents-dir', agents, '--once', 'keeper'], {
        env,
        cwd: box.cwd,
      });
      expect(result.stderr).not.toMatch(/error/i);
      expect(result.code).toBe(0);
    }
    const logged = await runs();
    expect(logged.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(logged.map((r) => r.answer)).toEqual([
      FACT,
      'Earlier I said: PELICAN.',
      'Earlier I said: PELICAN.',
    ]);
    expect(new Set(logged.map((r) => r.sessionId)).size).toBe(1);
    // One failed request and three answered; the third run's request holds every earlier prompt and answer.
    expect(server.requests).toHaveLength(4);
    const third = server.requests[3]!.messages.filter((m) => m.role !== 'system');
    expect(third.map((m) => [m.role, contentText(m.content)])).toEqual([
      ['user', 'Run your check.'],
      ['assistant', FACT],
      ['user', 'Run your check.'],
      ['assistant', 'Earlier I said: PELICAN.'],
      ['user', 'Run your check.'],
    ]);
    for (const request of server.requests) expect(request.temperature).toBe(0.3);
  });

  it('without it, each run starts afresh and remembers nothing', async () => {
    server = await openAiRecorder((request, index) => forgetfulModel(request, index + 1));
    await writeFile(
      join(agents, 'forgetter.md'),
      '---\nname: forgetter\ndescription: Forgets.\nevery: 1h\nprompt: Run your check.\n---\nYou keep notes.\n',
    );
    const config = { vendor: 'openai', base_url: server.baseUrl, model: 'local-model', max_retries: 0 };
    const env = { ...box.env, LLM_PROVIDER_CONFIG: JSON.stringify(config) };
    for (let run = 1; run <= 2; run++) {
      const result = await birdie(['start', '--agents-dir', agents, '--once', 'forgetter'], {
        env,
        cwd: box.cwd,
      });
      expect(result.code).toBe(0);
    }
    const logged = await runs();
    expect(logged.map((r) => r.answer)).toEqual([FACT, 'I remember nothing.']);
    expect(new Set(logged.map((r) => r.sessionId)).size).toBe(2);
    expect(server.requests[1]!.messages.filter((m) => m.role !== 'system')).toHaveLength(1);
  });
});
