import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';

export type Located = { path: string } | { code: 'ENOENT' | 'EACCES' };

/**
 * Finds `command` the way execvp does (a name with a slash is a path, relative to `cwd`; else each PATH entry in
 * turn, an empty entry meaning `cwd`). A guarded child is started through a wrapper, so a missing program must be
 * found missing here to still fail with `spawn-failed` rather than with the wrapper's exit code 127.
 */
export function locateCommand(command: string, path: string, cwd: string): Located {
  const candidates = command.includes('/')
    ? [resolve(cwd, command)]
    : path.split(delimiter).map((dir) => resolve(cwd, dir || '.', command));
  let denied = false;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return { path: candidate };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EACCES') denied = true;
    }
  }
  return { code: denied ? 'EACCES' : 'ENOENT' };
}

/** The absolute path of a program in an absolute directory of `path`, or undefined. */
export function findExecutable(name: string, path: string): string | undefined {
  const absolute = path.split(delimiter).filter((dir) => isAbsolute(dir));
  if (absolute.length === 0) return undefined;
  const found = locateCommand(name, absolute.join(delimiter), '/');
  return 'path' in found ? found.path : undefined;
}

/** A spawn error code in words a user can act on; the code itself stays in the error's cause. */
export function spawnCodeText(code: string): string {
  if (code === 'ENOENT') return 'not found (not a file, and not on PATH)';
  if (code === 'EACCES') return 'not executable (permission denied)';
  return code;
}
