import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCRIPTS, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

const repl = useReplSandbox(scripted('repl.json'));

/** A narrow terminal, so the long messages need more than one line. */
const COLUMNS = 100;

/** A loopback port nothing listens on: one the system just gave out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The screen from the last time `line` was typed at the prompt up to the next prompt. */
async function turnOn(t: { screen(): Promise<string> }, line: string): Promise<string> {
  const screen = await t.screen();
  const from = screen.lastIndexOf(`› ${line}`);
  const end = screen.indexOf('\n›', from + 1);
  return screen.slice(from, end === -1 ? undefined : end);
}

/** `text` as shown wrapped between words: each space may have become a line break. */
function phrase(text: string): RegExp {
  return new RegExp(
    text
      .split(' ')
      .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+'),
  );
}

/**
 * No word was cut by the terminal's edge: a line that fills the width does not end in the middle of a word that
 * goes on at the start of the next line. (A line may fill the width exactly, its last word whole; how long the
 * lines are depends on the checkout's path, which the messages name.)
 */
function fitsWidth(shown: string): void {
  const lines = shown.split('\n');
  lines.forEach((line, i) => {
    const next = lines[i + 1] ?? '';
    const cut = line.length >= COLUMNS && /\S$/.test(line) && /^\S/.test(next);
    expect(cut, `${line}\n${next}`).toBe(false);
  });
}

describe('hints name what to do from where the user is (compiled CLI, real terminal)', {
  timeout: 60_000,
}, () => {
  it('/session switch to an unknown id points at /session list, not at the shell command', async () => {
    const t = repl.start([], { cols: COLUMNS });
    await t.expect('/help for commands');
    await t.submit('/session switch 2020-01-01_9');
    await t.expect('no session "2020-01-01_9"');
    await t.prompt();
    const shown = await turnOn(t, '/session switch 2020-01-01_9');
    expect(shown).toContain('error: no session "2020-01-01_9". Run `/session list`.');
    expect(shown).not.toContain('birdie sessions');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('a scripted 401 says the script simulated it, naming the reply, and does not send the user to a key', async () => {
    const t = repl.start([], { env: scripted('failing.json'), cols: COLUMNS });
    await t.expect('/help for commands');
    await t.submit('hello');
    await t.expect('invalid api key');
    await t.prompt();
    const shown = await turnOn(t, 'hello');
    fitsWidth(shown);
    expect(shown).toContain('HTTP 401');
    expect(shown).toMatch(
      phrase(`simulated by reply 1 of the script ${join(SCRIPTS, 'failing.json')}; no key is involved.`),
    );
    expect(shown).not.toContain('LLM_SCRIPT');
    expect(shown).not.toContain('API_KEY');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });

  it('Ollama on a closed loopback port: the error names the URL it tried, not a bare "fetch failed"', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const t = repl.start([], {
      env: { LLM_VENDOR: 'ollama', LLM_SCRIPT: undefined, OLLAMA_HOST: url, LLM_MAX_RETRIES: '0' },
      cols: COLUMNS,
    });
    await t.expect('/help for commands');
    await t.submit('hello');
    await t.expect('could not be reached');
    await t.prompt();
    const shown = await turnOn(t, 'hello');
    fitsWidth(shown);
    expect(shown).toMatch(
      phrase(`ollama could not be reached at ${url}: nothing is listening there (connection refused)`),
    );
    expect(shown).not.toContain('fetch failed');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });
});
