import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Node's timers hold at most 2^31-1 ms (about 24.8 days): a longer timeout fired at once. Such a value is refused
// where it is read, with its position, never run for 1 ms and reported as a timeout of days.
let box: Sandbox;
let skills: string;
beforeEach(async () => {
  box = await sandbox();
  skills = join(box.dir.path, 'skills');
  await mkdir(join(skills, 'bt'), { recursive: true });
});
afterEach(async () => {
  await box.cleanup();
});

const toolSkill = (timeout: number) => `---
name: bt
description: a long job that may take days
---
## Tools

### long_job
description: a job that may run for a long time
timeout: ${timeout}
entrypoint: bash:echo job-finished
`;

describe('a timeout longer than a timer can hold', () => {
  it('skills check refuses a tool timeout of 30 days, at its line', async () => {
    await writeFile(join(skills, 'bt', 'SKILL.md'), toolSkill(2_592_000));
    const result = await birdie(['skills', 'check', skills], box);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/bt\/SKILL\.md:9:\d+ +error .*timeout.*at most 2147483 seconds/);
  });

  it('accepts the longest timeout a timer holds', async () => {
    await writeFile(join(skills, 'bt', 'SKILL.md'), toolSkill(2_147_483));
    const check = await birdie(['skills', 'check', skills], box);
    expect(check.stdout).toContain('0 errors');
    const run = await birdie(['tool', 'long_job', '--skills-dir', skills], box);
    expect(run).toMatchObject({ code: 0, stdout: 'job-finished\n' });
    expect(run.stderr).not.toContain('TimeoutOverflowWarning');
  });

  it('birdie tool --timeout 1000000000 is a usage error', async () => {
    await writeFile(join(skills, 'bt', 'SKILL.md'), toolSkill(10));
    const result = await birdie(['tool', 'long_job', '--skills-dir', skills, '--timeout', '1000000000'], box);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timeout must be at most 2147483 seconds');
    expect(result.stdout).toBe('');
  });

  it("skills check refuses an mcp_server's timeout of 30 days, at its line", async () => {
    await writeFile(
      join(skills, 'bt', 'SKILL.md'),
      '---\nname: bt\ndescription: a server\nmcp_server:\n  command: node\n  args: [server.js]\n  timeout: 2592000\n---\nx\n',
    );
    const result = await birdie(['skills', 'check', skills], box);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/bt\/SKILL\.md:7:\d+ +error .*timeout.*at most 2147483 seconds/);
  });

  it("agents check refuses an agent's timeout of 30 days", async () => {
    const agents = join(box.dir.path, 'ag');
    await mkdir(agents);
    await writeFile(
      join(agents, 'slow.md'),
      '---\nname: slow\ndescription: slow\ntimeout: 2592000\n---\nGo.\n',
    );
    const result = await birdie(['agents', 'check', agents], box);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/slow\.md:4:\d+ +error .*at most 2147483 seconds/);
  });
});
