import { lstat, readlink, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Why `file` is missing when it is missing because a symbolic link on its way points nowhere: the file itself, or the
 * nearest folder above it that is not there (`.birdie` linked to a dotfiles folder that was moved). Such a file is not
 * absent: someone put it there, and a reader that must not go on without it (deny rules) says so instead. `undefined`
 * when nothing on the way is a broken link: the file is simply not there.
 *
 * Only the part of the path that does not exist is looked at: the walk stops at the first thing there that is not a
 * broken link.
 */
export async function brokenLinkWhy(file: string): Promise<string | undefined> {
  const wanted = resolve(file);
  for (let path = wanted; ; path = dirname(path)) {
    let isLink: boolean;
    try {
      isLink = (await lstat(path)).isSymbolicLink();
    } catch {
      // Not there either (or not reachable): look one folder up, until the root.
      if (dirname(path) === path) return undefined;
      continue;
    }
    if (!isLink) return undefined;
    try {
      await stat(path);
      return undefined;
    } catch {
      const target = await readlink(path).catch(() => '?');
      const what = path === wanted ? 'it is' : `${path} is`;
      return `${what} a symbolic link to ${target}, which does not exist`;
    }
  }
}
