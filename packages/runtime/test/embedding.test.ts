import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./fixtures/shout.json', import.meta.url));
/** A scripted model (no network): asked to shout, it calls `shout`, then answers. Nothing else is faked. */
const MODEL_ENV = { ...process.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: SCRIPT, NO_COLOR: '1' };

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Runs an example as its README shows it (`node examples/NAME.mjs`), collecting stdout lines as they come. */
function runExample(name: string, args: string[] = []) {
  const child = spawn(process.execPath, [`examples/${name}.mjs`, ...args], { cwd: ROOT, env: MODEL_ENV });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  let buffer = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lineStarting = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find((line) => line.startsWith(prefix));
        if (found) {
          listeners.delete(check);
          resolve(found);
        }
      };
      listeners.add(check);
      check();
      void exited.then(() => reject(new Error(`example ended before "${prefix}": ${stderr}`)));
    });
  return { child, lines, exited, lineStarting, stderr: () => stderr };
}

describe('the README embedding examples, without the CLI', () => {
  it('are the files the test runs, each at most 40 lines', async () => {
    const readme = await readFile(`${ROOT}/README.md`, 'utf8');
    for (const name of ['serve', 'one-turn']) {
      const source = await readFile(`${ROOT}/examples/${name}.mjs`, 'utf8');
      expect(readme).toContain(source.trimEnd());
      expect(source.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
    }
  });

  it('one-turn.mjs runs a turn through the runtime: the custom tool runs and the events print', async () => {
    const example = runExample('one-turn', ['shout it']);
    expect(await example.exited, example.stderr()).toBe(0);
    const toolEnd = example.lines.find((line) => line.startsWith('tool-end '));
    expect(toolEnd).toContain('HELLO BIRDIE');
    expect(example.lines).toContain('token {"type":"token","text":"you."}');
    expect(example.lines.at(-1)).toMatch(/^\d{4}-\d{2}-\d{2}_1: ok, 1 tool call\(s\)$/);
  }, 120_000);

  it('serve.mjs serves the custom skill over HTTP: a token holder runs a turn that calls it', async () => {
    const example = runExample('serve');
    const url = (await example.lineStarting('listening on ')).slice('listening on '.length);
    const token = (await example.lineStarting('token ')).slice('token '.length);
    const call = (path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });

    const skills = (await (await call('/v1/skills')).json()) as { skills: Array<{ name: string }> };
    expect(skills.skills.map((s) => s.name)).toContain('shouter');
    const created = await call('/v1/sessions', {});
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string };
    expect(session.id).toMatch(/^alice~/);

    const turn = await call(`/v1/sessions/${session.id}/turns`, { prompt: 'shout it' });
    expect(turn.status).toBe(200);
    const stream = await turn.text();
    expect(stream).toContain('event: tool-end');
    expect(stream).toContain('HELLO BIRDIE');
    expect(stream).toContain('"content":"I shouted it for you."');

    // The run log, the one turn path's record, has the turn and its tool call.
    const runs = (await (await call('/v1/runs')).json()) as { runs: unknown[] };
    expect(runs.runs[0]).toMatchObject({
      status: 'ok',
      sessionId: session.id,
      toolCalls: [expect.objectContaining({ name: 'shout', status: 'ok' })],
    });

    example.child.kill('SIGTERM');
    expect(await example.exited).toBe(0);
  }, 120_000);
});
