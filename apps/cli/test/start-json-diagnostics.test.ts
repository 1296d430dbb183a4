import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BirdieProcess, startBirdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported: `birdie start --json` ("log one JSON object per line on stderr", the form for journald) wrote an agent
// file's problems as plain `file:line:col  warning  …` lines between its JSON objects. Each is a JSON object now.

let box: Sandbox;
let start: BirdieProcess | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  start?.kill('SIGKILL');
  await box.cleanup();
});

describe('birdie start --json with problems in the agent files', { timeout: 90_000 }, () => {
  it('logs each problem as a JSON diagnostic object on stderr, and nothing but JSON objects', async () => {
    const agents = join(box.dir.path, 'agents');
    await mkdir(agents);
    // The name does not match the file name (a warning), and the agent has a trigger, so start has it to run.
    await writeFile(
      join(agents, 'nameclash.md'),
      '---\nname: other-name\ndescription: Ticks.\nschedule: "0 3 * * *"\n---\nYou tick.\n',
    );
    const script = join(box.dir.path, 'script.json');
    await writeFile(script, JSON.stringify({ replies: [] }));
    start = startBirdie(['start', '--json', '--agents-dir', agents], {
      env: { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
      cwd: box.cwd,
      timeoutMs: 60_000,
    });
    await start.waitFor('stdout', /"type":"scheduled"/, 50_000);
    const lines = start.stderr().trim().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    const records = lines.map((line) => {
      expect(line, start!.stderr()).toMatch(/^\{.*\}$/);
      return JSON.parse(line) as Record<string, unknown>;
    });
    expect(records).toContainEqual(
      expect.objectContaining({
        event: 'diagnostic',
        severity: 'warning',
        file: join(agents, 'nameclash.md'),
        line: 2,
        rule: expect.stringContaining('name-file-mismatch'),
        message: expect.stringContaining('other-name'),
      }),
    );
  });
});
