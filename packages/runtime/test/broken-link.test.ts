import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { brokenLinkWhy } from '../src/broken-link.js';
import { readRegularTextIfPresent } from '../src/regular-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'broken-link-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a file missing because a symbolic link on its way points nowhere', () => {
  it('is named by its own link, with the target as the link says it (a relative one too)', async () => {
    await symlink('../elsewhere/settings.json', join(dir, 'settings.json'));
    expect(await brokenLinkWhy(join(dir, 'settings.json'))).toBe(
      'it is a symbolic link to ../elsewhere/settings.json, which does not exist',
    );
  });

  it('or by the linked folder above it that is gone', async () => {
    await symlink(join(dir, 'gone'), join(dir, '.birdie'));
    expect(await brokenLinkWhy(join(dir, '.birdie', 'settings.json'))).toBe(
      `${join(dir, '.birdie')} is a symbolic link to ${join(dir, 'gone')}, which does not exist`,
    );
  });

  it('a link to a folder that is there, without the file, is a file simply not there', async () => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, '.birdie'));
    expect(await brokenLinkWhy(join(dir, '.birdie', 'settings.json'))).toBeUndefined();
    expect(await readRegularTextIfPresent(join(dir, '.birdie', 'settings.json'))).toBeUndefined();
  });

  it('a file and folders that are not there at all are simply not there', async () => {
    expect(await brokenLinkWhy(join(dir, 'a', 'b', 'settings.json'))).toBeUndefined();
    expect(await readRegularTextIfPresent(join(dir, 'a', 'b', 'settings.json'))).toBeUndefined();
  });

  it('readRegularTextIfPresent refuses the broken link and reads through a working one', async () => {
    await symlink(join(dir, 'nowhere.json'), join(dir, 'broken.json'));
    await expect(readRegularTextIfPresent(join(dir, 'broken.json'))).rejects.toThrow(
      `it is a symbolic link to ${join(dir, 'nowhere.json')}, which does not exist`,
    );
    await writeFile(join(dir, 'real.json'), '{}');
    await symlink(join(dir, 'real.json'), join(dir, 'working.json'));
    expect(await readRegularTextIfPresent(join(dir, 'working.json'))).toBe('{}');
  });
});
