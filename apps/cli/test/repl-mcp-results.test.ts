import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

// mcp-results: a stdio MCP server (server.mjs) whose tools answer with text + structuredContent, structuredContent
// alone, and text + an image block.
const MCP_SKILLS = join(FIXTURES, 'mcp-skills');
const STATUS_SESSION = /│ session: (\S+) │/;
const LISBON = '{"city":"Lisbon","temperature":21,"conditions":"clear-skies"}';
const PORTO = '{"city":"Porto","temperature":18,"conditions":"light-rain"}';

const repl = useReplSandbox(scripted('mcp-results.json'));

const count = (text: string, part: string) => text.split(part).length - 1;

/** The screen from the last time `line` was typed at the prompt up to the next prompt. */
async function turnOn(t: { screen(): Promise<string> }, line: string): Promise<string> {
  const screen = await t.screen();
  const from = screen.lastIndexOf(`› ${line}`);
  const end = screen.indexOf('\n›', from + 1);
  return screen.slice(from, end === -1 ? undefined : end);
}

/** The contents of the session's stored tool messages: what the model read. */
async function toolMessages(id: string): Promise<string[]> {
  const shown = await runCli(['sessions', 'show', id, '--json'], { env: repl.box.env, cwd: repl.box.cwd });
  expect(shown.code, shown.stderr).toBe(0);
  return shown.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { role: string; content: string })
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);
}

describe('MCP results in the REPL (compiled CLI, real terminal, a real MCP server)', {
  timeout: 60_000,
}, () => {
  it('text with structuredContent shows the text once; structuredContent alone shows the JSON; an image its MIME type', async () => {
    const t = repl.start(['--skills-dir', MCP_SKILLS]);
    await t.expect('/help for commands');
    await t.submit('weather with text');
    await t.expect('Looked it up.');
    await t.submit('structured weather');
    await t.expect('Looked up the structure.');
    await t.submit('a picture');
    await t.expect('Got the picture.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.prompt();

    const both = await turnOn(t, 'weather with text');
    expect(both).toContain(`⚙ weather_both (mcp-results) {}\n│ ${LISBON}\n└ ✓ weather_both · 1 line`);
    expect(count(both, '"city":"Lisbon"')).toBe(1);
    expect(both).not.toContain('structuredContent');

    const structured = await turnOn(t, 'structured weather');
    expect(structured).toContain(
      `⚙ weather_structured (mcp-results) {}\n│ ${PORTO}\n└ ✓ weather_structured · 1 line`,
    );

    const picture = await turnOn(t, 'a picture');
    expect(picture).toMatch(
      /⚙ picture \(mcp-results\) \{\}\n│ Here is the picture\.\n│ \[image: image\/png, \d+ bytes\]\n└ ✓ picture · 2 lines/,
    );
    expect(picture).not.toContain('[image_url]');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);

    // The model read the same: each result once, the structure when there was no text.
    const [lisbon, porto, image] = await toolMessages(id);
    expect(lisbon).toBe(LISBON);
    expect(porto).toBe(PORTO);
    expect(image).toMatch(/^Here is the picture\.\n\[image: image\/png, \d+ bytes\]$/);
  });

  it('a server whose command does not exist: "not found", naming the command, and the turn is answered', async () => {
    const skills = join(repl.box.dir.path, 'skills');
    await mkdir(join(skills, 'missing-server'), { recursive: true });
    await writeFile(
      join(skills, 'missing-server', 'SKILL.md'),
      '---\nname: missing-server\ndescription: An MCP server whose command does not exist\nenabled_by_default: true\nmcp_server:\n  command: birdie-no-such-mcp-server\n  args: [--stdio]\n---\n\nMissing.\n',
    );
    const t = repl.start(['--skills-dir', skills]);
    await t.expect('/help for commands');
    await t.submit('hello');
    await t.expect('Plain answer.');
    await t.prompt();
    const shown = await turnOn(t, 'hello');
    expect(shown).toContain(
      'MCP server "missing-server" failed to start: could not start birdie-no-such-mcp-server: not found',
    );
    expect(shown).not.toContain('Connection closed');
    expect(shown).not.toContain('ENOENT');
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
  });
});
