import { join } from 'node:path';
import { writeTree } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { checkAgentFiles, checkSkillFiles, missingPath } from '../src/check-files.js';
import { tempHomeEachTest } from './helpers/temp-home.js';

const home = tempHomeEachTest();

const SKILL = '---\nname: notes\ndescription: Project notes\n---\n\nNotes.\n';
const BROKEN = '---\nname: Bad Name\n---\n\nNo description.\n';
const AGENT = '---\nname: helper\ndescription: Helps.\nskills: [nosuch]\n---\n\nHelp.\n';
const rules = (check: { messages: { ruleId?: string | undefined }[] }) => check.messages.map((m) => m.ruleId);

describe('checking skill files', () => {
  it("checks a skills folder, one skill's folder or a SKILL.md, and reports a missing path as a problem", async () => {
    await writeTree(home.path, { 'skills/notes/SKILL.md': SKILL, 'skills/bad/SKILL.md': BROKEN });
    const folder = await checkSkillFiles(home.io, {}, ['skills']);
    expect(folder.loaded).toBe(1);
    expect(folder.messages.some((m) => m.fatal === true && m.file?.endsWith('bad/SKILL.md'))).toBe(true);
    expect(folder.untrusted).toEqual([]);
    expect((await checkSkillFiles(home.io, {}, ['skills/notes'])).loaded).toBe(1);
    const file = await checkSkillFiles(home.io, {}, ['skills/notes/SKILL.md', 'nowhere']);
    expect(file.loaded).toBe(1);
    expect(file.messages).toContainEqual(missingPath(join(home.path, 'nowhere')));
    expect(rules(file)).toEqual(['missing-path']);
  });

  it("checks the folders birdie loads without paths, and names the untrusted project's that it skips", async () => {
    await writeTree(home.path, {
      '.birdie/skills/notes/SKILL.md': SKILL,
      'project/.agents/skills/project/SKILL.md': SKILL.replace('notes', 'project'),
    });
    const check = await checkSkillFiles({ ...home.io, cwd: join(home.path, 'project') }, {}, []);
    expect(check.loaded).toBe(1);
    expect(check.untrusted.map((w) => w.skills.map((s) => s.name))).toEqual([['project']]);
  });
});

describe('checking agent files', () => {
  it('checks an agent file against the skills birdie loads, and a missing path', async () => {
    await writeTree(home.path, { 'agents/helper.md': AGENT });
    const check = await checkAgentFiles(home.io, {}, ['agents/helper.md', 'agents/none.md']);
    expect(check.loaded).toBe(1);
    expect(rules(check)).toContain('unknown-skill');
    expect(rules(check)).toContain('missing-path');
    expect((await checkAgentFiles(home.io, {}, ['agents'])).loaded).toBe(1);
  });

  it('checks the agents birdie loads without paths', async () => {
    await writeTree(home.path, { '.birdie/agents/helper.md': AGENT, 'project/README.md': 'hi\n' });
    const check = await checkAgentFiles({ ...home.io, cwd: join(home.path, 'project') }, {}, []);
    expect(check.loaded).toBe(1);
    expect(rules(check)).toContain('unknown-skill');
  });
});
