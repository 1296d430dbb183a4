import { StoreError } from '@birdie/store/errors';
import { describe, expect, it } from 'vitest';
import { events, gate, useServer } from './helpers.js';

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of a Prometheus text exposition. */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample of `name` whose labels include `labels` (0 when there is none). */
function value(all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = all.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

describe('GET /metrics on the separate metrics listener', () => {
  const h = useServer();

  it('counts turns by status, their duration, tool calls by tool and outcome, tokens by model, store errors and active sessions', async () => {
    const { url } = await h.server.listenMetrics({ host: '127.0.0.1', port: 0 });
    const scrape = async () => {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return samples(await response.text());
    };
    const token = await h.token();
    const newSession = async () =>
      ((await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string }).id;

    const before = await scrape();
    expect(value(before, 'birdie_turns_started_total')).toBe(0);
    expect(value(before, 'birdie_active_sessions')).toBe(0);
    // The process's own metrics come along (a scraper expects them).
    expect(before.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);

    const release = gate();
    const started = gate();
    h.runtime.script = async ({ session, handlers }) => {
      if (session.title === 'held') {
        started.open();
        await release.promise;
      }
      handlers.onEvent({ type: 'tool-start', id: 'c1', name: 'read_file', args: {} });
      handlers.onEvent({
        type: 'tool-end',
        id: 'c1',
        name: 'read_file',
        ok: true,
        output: 'x',
        truncated: false,
        durationMs: 1,
      });
      handlers.onEvent({
        type: 'tool-end',
        id: 'c2',
        name: 'run_bash',
        ok: false,
        output: 'no',
        truncated: false,
        durationMs: 1,
      });
      handlers.onEvent({ type: 'usage', inputTokens: 5, outputTokens: 7, model: 'openai:gpt-4o-mini' });
      handlers.onEvent({ type: 'usage', inputTokens: 1, outputTokens: 2, model: 'anthropic:claude' });
      handlers.onEvent({ type: 'done', status: 'ok' });
      return { status: 'ok', inputTokens: 6, outputTokens: 9 };
    };
    const held = (
      (await (await h.request('/v1/sessions', { token, json: { title: 'held' } })).json()) as { id: string }
    ).id;
    const running = await h.request(`/v1/sessions/${held}/turns`, { token, json: { prompt: 'one' } });
    await started.promise;
    expect(value(await scrape(), 'birdie_active_sessions')).toBe(1);
    release.open();
    await events(running);

    const quick = await newSession();
    await events(await h.request(`/v1/sessions/${quick}/turns`, { token, json: { prompt: 'two' } }));
    h.runtime.script = async () => ({
      status: 'error',
      inputTokens: 0,
      outputTokens: 0,
      error: 'model failed',
    });
    await events(await h.request(`/v1/sessions/${quick}/turns`, { token, json: { prompt: 'three' } }));
    // A store that cannot answer: 503 to the client, counted by its code.
    h.runtime.failWith = new StoreError('unavailable', 'connection refused');
    expect((await h.request(`/v1/sessions/${quick}`, { token })).status).toBe(503);
    // A missing session is the caller's mistake, not a store error.
    expect((await h.request('/v1/sessions/2026-01-01_99', { token })).status).toBe(404);

    const after = await scrape();
    expect(value(after, 'birdie_turns_started_total')).toBe(3);
    expect(value(after, 'birdie_turns_finished_total', { status: 'ok' })).toBe(2);
    expect(value(after, 'birdie_turns_finished_total', { status: 'error' })).toBe(1);
    expect(value(after, 'birdie_turn_duration_seconds_count', { status: 'ok' })).toBe(2);
    expect(value(after, 'birdie_turn_duration_seconds_bucket', { status: 'ok', le: '+Inf' })).toBe(2);
    expect(value(after, 'birdie_tool_calls_total', { tool: 'read_file', outcome: 'ok' })).toBe(2);
    expect(value(after, 'birdie_tool_calls_total', { tool: 'run_bash', outcome: 'error' })).toBe(2);
    expect(
      value(after, 'birdie_model_tokens_total', { model: 'openai:gpt-4o-mini', direction: 'input' }),
    ).toBe(10);
    expect(
      value(after, 'birdie_model_tokens_total', { model: 'openai:gpt-4o-mini', direction: 'output' }),
    ).toBe(14);
    expect(
      value(after, 'birdie_model_tokens_total', { model: 'anthropic:claude', direction: 'output' }),
    ).toBe(4);
    expect(value(after, 'birdie_store_errors_total', { code: 'unavailable' })).toBe(1);
    expect(after.filter((s) => s.name === 'birdie_store_errors_total').map((s) => s.labels.code)).toEqual([
      'unavailable',
    ]);
    expect(value(after, 'birdie_active_sessions')).toBe(0);

    // Only /metrics is served there, and it closes with the server.
    expect((await fetch(`${url}/v1/sessions`)).status).toBe(404);
    await h.server.close({ graceMs: 0 });
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });
});

describe('GET /metrics on the API listener', () => {
  const h = useServer({ isAdminToken: (token) => token.userId === 'operator' });

  it('needs an admin token: 401 without a token, 403 forbidden for a user token, 200 for the admin', async () => {
    const anonymous = await h.request('/metrics');
    expect(anonymous.status).toBe(401);
    const user = await h.request('/metrics', { token: await h.token('alice') });
    expect(user.status).toBe(403);
    expect(await user.json()).toEqual({
      error: { code: 'forbidden', message: 'the metrics need an admin token' },
    });
    const admin = await h.request('/metrics', { token: await h.token('operator') });
    expect(admin.status).toBe(200);
    expect(admin.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(value(samples(await admin.text()), 'birdie_turns_started_total')).toBe(0);
  });
});

describe('GET /metrics by default', () => {
  const h = useServer();

  it('is read with an admin token (the stored role, birdie tokens create --admin) and refused to a user token', async () => {
    expect((await h.request('/metrics', { token: await h.token('alice') })).status).toBe(403);
    const admin = (await h.store.tokens.create('ops', { admin: true })).token;
    const scraped = await h.request('/metrics', { token: admin });
    expect(scraped.status).toBe(200);
    expect(value(samples(await scraped.text()), 'birdie_turns_started_total')).toBe(0);
  });

  it('a resend with the same Idempotency-Key joins the turn: it is counted once', async () => {
    const admin = (await h.store.tokens.create('ops', { admin: true })).token;
    const token = await h.token();
    const { id } = (await (await h.request('/v1/sessions', { token, json: {} })).json()) as { id: string };
    const send = () =>
      h.request(`/v1/sessions/${id}/turns`, {
        token,
        json: { prompt: 'hi' },
        headers: { 'Idempotency-Key': 'k-metrics' },
      });
    expect((await events(await send())).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    expect((await events(await send())).at(-1)).toMatchObject({ type: 'result', status: 'ok' });
    const all = samples(await (await h.request('/metrics', { token: admin })).text());
    expect(value(all, 'birdie_turns_started_total')).toBe(1);
    expect(value(all, 'birdie_turns_finished_total', { status: 'ok' })).toBe(1);
  });
});
