import { join } from 'node:path';
import type { LoadedConfig } from './config.js';
import type { RuntimeIo } from './io.js';
import { birdieHome } from './paths.js';

/** Where a session's memory files are looked for: `~/.birdie/NAME` and each project folder's, for each name. */
export function memoryFileOptions(rt: { io: RuntimeIo; config: Pick<LoadedConfig, 'settings'> }): {
  userFiles: string[];
  names: string[];
} {
  const names = rt.config.settings.memory_files;
  return { userFiles: names.map((name) => join(birdieHome(rt.io.env), name)), names };
}
