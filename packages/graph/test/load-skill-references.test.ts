import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Skill } from '@birdie/skill-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoadSkillTool, createReadReferenceTool } from '../src/progressive.js';

// A skill's resource list is made when the skill is loaded; by the time the model reads it, a listed file may lead out
// of the skill folder (a symlink to another user's file), be gone or be a folder. What load_skill lists and what
// read_reference's refusal names must be only what a read serves: the names of files outside the folder are not
// the model's to see.

let root: string;
let skill: Skill;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'birdie-load-refs-'));
  const dir = join(root, 'notes');
  await mkdir(join(dir, 'ref'), { recursive: true });
  await writeFile(join(dir, 'ref', 'guide.md'), 'the guide\n');
  await writeFile(join(root, 'payroll-2026.md'), 'secret\n');
  await symlink(join(root, 'payroll-2026.md'), join(dir, 'ref', 'payroll-2026.md'));
  skill = {
    name: 'notes',
    description: 'Notes about the project.',
    dir,
    body: '# Notes\nRead the guide.',
    resources: ['ref/gone-draft.md', 'ref/guide.md', 'ref/payroll-2026.md'],
    tools: [],
  } as unknown as Skill;
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function call(tool: ReturnType<typeof createLoadSkillTool>, args: Record<string, unknown>) {
  const built = tool.build(args);
  if (!built.ok) throw new Error(built.error);
  return built.invocation.run({ cwd: root });
}

describe('load_skill and read_reference list only the reference files a read serves', () => {
  it('load_skill lists the file inside the folder, not the symlink leading out nor the gone file', async () => {
    const result = await call(createLoadSkillTool([skill]), { name: 'notes' });
    expect(result.ok).toBe(true);
    expect(result.content).toContain('- ref/guide.md');
    expect(result.content).not.toContain('payroll');
    expect(result.content).not.toContain('gone-draft');
  });

  it("read_reference's refusal of an unknown name lists only the readable files", async () => {
    const result = await call(createReadReferenceTool([skill], 1000), {
      skill: 'notes',
      file: 'ref/other.md',
    });
    expect(result.ok).toBe(false);
    expect(result.content).toContain('Files: ref/guide.md');
    expect(result.content).not.toContain('payroll');
    expect(result.content).not.toContain('gone-draft');
  });

  it('a skill with no readable file lists none', async () => {
    const only = { ...skill, resources: ['ref/payroll-2026.md'] } as Skill;
    const result = await call(createLoadSkillTool([only]), { name: 'notes' });
    expect(result.content).not.toContain('Reference files');
    expect(result.content).not.toContain('payroll');
  });
});
