import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scripted } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';
import { runCli } from './helpers/run-in-process.js';

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const STATUS_SESSION = /│ session: (\S+) │/;

const repl = useReplSandbox(scripted('mcp-elicit.json'));

describe('an MCP server asks the user for input, in the REPL (compiled CLI, real terminal, server-everything)', {
  timeout: 120_000,
}, () => {
  it('shows a form, one question a field, and sends what was typed (defaults for the rest)', async () => {
    const skills = join(repl.box.dir.path, 'skills');
    await mkdir(join(skills, 'everything'), { recursive: true });
    await writeFile(
      join(skills, 'everything', 'SKILL.md'),
      `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`,
    );
    const t = repl.start(['--skills-dir', skills]);
    await t.expect('/help for commands');
    await t.submit('fill the form');
    await t.expect('An MCP server asks: Please provide inputs for the following fields:');
    await t.expect('Your full, legal name');
    t.write('Ada Lovelace\r');
    // Every other field: Enter takes its default (or leaves an optional one out).
    for (const title of [
      'Boolean',
      'String with default',
      'String with email format',
      'String with uri format',
      'String with date format',
      'Integer',
      'Number in range 1-1000',
      'Untitled Single Select Enum',
      'Untitled Multiple Select Enum',
      'Titled Single Select Enum',
      'Titled Multiple Select Enum',
      'Legacy Titled Single Select Enum',
    ]) {
      await t.expect(title);
      t.write('\r');
    }
    await t.expect('Form done.');
    const id = STATUS_SESSION.exec(await t.expect(STATUS_SESSION))![1]!;
    await t.prompt();
    t.write('/quit\r');
    expect(await t.exited).toBe(0);
    const shown = await runCli(['sessions', 'show', id, '--json'], { env: repl.box.env, cwd: repl.box.cwd });
    const result = shown.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; content: string })
      .find((m) => m.role === 'tool')?.content;
    expect(result).toContain('User provided the requested information');
    expect(result).toContain('- Name: Ada Lovelace');
    expect(result).toContain('- Favorite Integer: 42');
    expect(result).toContain('"untitledMultipleSelectEnum": [\n      "Guitar"\n    ]');
  });
});
