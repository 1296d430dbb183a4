import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('birdie doctor --json on a store that cannot be opened', () => {
  it('still prints a report a script can parse, not ok, with the reason and the advice', async () => {
    const file = join(box.home, 'birdie.db');
    await writeFile(file, 'garbage\n');
    const run = await birdie(['doctor', '--json'], { env: box.env, cwd: box.cwd });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ok: false, location: file, checked: 0, damaged: [], sessions: [] });
    expect(report.integrity.join(' ')).toContain('file is not a database');
    expect(report.advice.join(' ')).toContain('.recover');
    // The sentence a person reads is still on stderr.
    expect(run.stderr).toContain('is malformed');
  });
});
