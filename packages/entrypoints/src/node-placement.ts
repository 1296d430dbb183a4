import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Real paths of the folders whose `node:` tools are the application's own code (see `configureNodeTools`). */
let inProcessRoots: readonly string[] = [];

export interface NodeToolsOptions {
  /**
   * Skill folders (absolute paths) holding the application's own, first-party `node:` tools, such as the skills a CLI
   * ships. Their tools always run in this process, even under the sandbox: they confine their paths themselves and
   * may use `context.files`. A `node:` tool from any other folder runs in a sandboxed child process whenever the
   * sandbox applies to it. Default: none.
   */
  inProcess?: readonly string[];
}

/** Sets which skill folders hold first-party `node:` tools, for every call from now on (no argument: none). */
export function configureNodeTools(options: NodeToolsOptions = {}): void {
  inProcessRoots = (options.inProcess ?? []).filter((path) => isAbsolute(path)).map(realOrResolved);
}

/** Whether a `node:` tool of this skill folder is first-party code, which runs in-process (by real path). */
export function runsInProcess(skillDir: string): boolean {
  if (inProcessRoots.length === 0) return false;
  const dir = realOrResolved(skillDir);
  return inProcessRoots.some((root) => {
    const rel = relative(root, dir);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  });
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
