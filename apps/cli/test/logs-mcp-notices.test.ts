import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox, scripted } from './helpers/env.js';

const exec = promisify(execFile);

const everything = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox(scripted('mcp-logging.json'));
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'everything'), { recursive: true });
  await writeFile(
    join(skills, 'everything', 'SKILL.md'),
    `---\nname: everything\ndescription: The MCP reference server\nenabled_by_default: true\nmcp_server:\n  transport: stdio\n  command: node\n  args: ${JSON.stringify([everything])}\n---\n`,
  );
});
afterEach(async () => {
  await box.cleanup();
});

async function birdie(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], { env: box.env, cwd: box.cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const LEVELS = 'debug|info|notice|warning|error|critical|alert|emergency';

describe('MCP server log messages in the run log (compiled CLI, server-everything)', {
  timeout: 90_000,
}, () => {
  it('a log message sent during a tool call is stored with the run at its level; birdie logs shows it', async () => {
    // server-everything's toggle-simulated-logging sends its first message at once (a random level).
    const ran = await birdie(['run', 'turn on the logs', '--skills-dir', skills]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Logging is on.');

    const listed = await birdie(['logs', '--json']);
    const [run] = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; notices: Array<Record<string, string>> });
    // It logs again every 5 s while the turn goes on: on a slow machine a second message is the run's too.
    expect(run?.notices.length).toBeGreaterThanOrEqual(1);
    for (const notice of run?.notices ?? []) {
      expect(notice).toMatchObject({ server: 'everything', kind: 'log' });
      expect(notice.level).toMatch(new RegExp(`^(${LEVELS})$`));
      expect(notice.text).toMatch(/^\w+[- ]level[- ]message$/i);
    }

    const table = await birdie(['logs']);
    expect(table.stdout).toMatch(/toggle-simulated-logging {2}\d+ MCP notices?/);

    const shown = await birdie(['logs', 'show', String(run?.id)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `MCP notices:\\n  \\d\\d:\\d\\d:\\d\\d (${LEVELS}) +everything: \\w+[- ]level[- ]message\\n`,
        'i',
      ),
    );
  });
});
