import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EntrypointError } from './errors.js';

/** Lexical check at resolve time: a module path is relative and stays below the skill folder. */
export function lexicalInside(skillDir: string, modulePath: string, where: string): string {
  if (modulePath.includes('\0'))
    throw new EntrypointError('bad-entrypoint', `${where}: NUL byte in the module path`);
  if (isAbsolute(modulePath) || /^[A-Za-z]:[\\/]/.test(modulePath)) {
    throw new EntrypointError(
      'path-escape',
      `${where}: the module path must be relative to the skill folder`,
    );
  }
  const full = resolve(skillDir, modulePath);
  if (!isInside(resolve(skillDir), full)) {
    throw new EntrypointError('path-escape', `${where}: '${modulePath}' leaves the skill folder`);
  }
  return full;
}

/** Real-path check at load time, so a symlink cannot lead out of the skill folder either. */
export async function realInside(skillDir: string, file: string, where: string): Promise<string> {
  const root = await realpath(skillDir).catch((cause) => {
    throw new EntrypointError('module-not-found', `${where}: skill folder ${skillDir} does not exist`, {
      cause,
    });
  });
  const real = await realpath(file).catch((cause) => {
    throw new EntrypointError('module-not-found', `${where}: module ${file} does not exist`, { cause });
  });
  if (!isInside(root, real)) {
    throw new EntrypointError(
      'path-escape',
      `${where}: the module resolves to ${real}, outside the skill folder`,
    );
  }
  return real;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
