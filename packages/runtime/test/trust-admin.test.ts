import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { listTrust, revokeTrust, trustFolder } from '../src/trust-admin.js';
import { tempHomeEachTest } from './helpers/temp-home.js';

const home = tempHomeEachTest();

const SKILL = '---\nname: notes\ndescription: Project notes\n---\n\nNotes.\n';

describe("the user's answers about project folders", () => {
  it('trusts a folder for what it declares, lists the answer and forgets it on revoke', async () => {
    await writeTree(join(home.path, 'project'), { '.agents/skills/notes/SKILL.md': SKILL });
    const dir = realpathSync(join(home.path, 'project'));
    const { dir: trusted, declarations } = await trustFolder(home.io, {}, 'project');
    expect(trusted).toBe(dir);
    expect(declarations?.skills.map((s) => s.name)).toEqual(['notes']);
    const records = await listTrust(home.io);
    expect(records.map((r) => [r.dir, r.decision, r.digest])).toEqual([
      [dir, 'trusted', declarations!.digest],
    ]);
    expect(await revokeTrust(home.io, 'project')).toEqual({ dir, removed: true });
    expect(await revokeTrust(home.io, 'project')).toEqual({ dir, removed: false });
    expect(await listTrust(home.io)).toEqual([]);
  });

  it('records nothing for a folder that declares nothing, and refuses a path that is no folder', async () => {
    await writeTree(home.path, { 'empty/README.md': 'hi\n', 'file.txt': 'x' });
    expect((await trustFolder(home.io, {}, 'empty')).declarations).toBeUndefined();
    expect(await listTrust(home.io)).toEqual([]);
    await expect(trustFolder(home.io, {}, 'file.txt')).rejects.toThrow(/file\.txt is not a folder/);
  });
});
