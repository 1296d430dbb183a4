import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listTrust, revokeTrust, trustFolder } from '../src/trust-admin.js';

let home: Awaited<ReturnType<typeof makeTempDir>>;
let io: { env: NodeJS.ProcessEnv; cwd: string; stderr: { write(text: string): unknown } };
beforeEach(async () => {
  home = await makeTempDir();
  io = {
    env: { HOME: home.path, USER: 'ada', BIRDIE_HOME: join(home.path, '.birdie') },
    cwd: home.path,
    stderr: { write: () => true },
  };
});
afterEach(() => home.cleanup());

const SKILL = '---\nname: notes\ndescription: Project notes\n---\n\nNotes.\n';

describe("the user's answers about project folders", () => {
  it('trusts a folder for what it declares, lists the answer and forgets it on revoke', async () => {
    await writeTree(join(home.path, 'project'), { '.agents/skills/notes/SKILL.md': SKILL });
    const dir = realpathSync(join(home.path, 'project'));
    const { dir: trusted, declarations } = await trustFolder(io, {}, 'project');
    expect(trusted).toBe(dir);
    expect(declarations?.skills.map((s) => s.name)).toEqual(['notes']);
    const records = await listTrust(io);
    expect(records.map((r) => [r.dir, r.decision, r.digest])).toEqual([
      [dir, 'trusted', declarations!.digest],
    ]);
    expect(await revokeTrust(io, 'project')).toEqual({ dir, removed: true });
    expect(await revokeTrust(io, 'project')).toEqual({ dir, removed: false });
    expect(await listTrust(io)).toEqual([]);
  });

  it('records nothing for a folder that declares nothing, and refuses a path that is no folder', async () => {
    await writeTree(home.path, { 'empty/README.md': 'hi\n', 'file.txt': 'x' });
    expect((await trustFolder(io, {}, 'empty')).declarations).toBeUndefined();
    expect(await listTrust(io)).toEqual([]);
    await expect(trustFolder(io, {}, 'file.txt')).rejects.toThrow(/file\.txt is not a folder/);
  });
});
