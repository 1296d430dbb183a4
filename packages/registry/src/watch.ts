import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { RegistryError } from './errors.js';
import type { RegistrySnapshot, RegistryWatcher, SkillDirectory, WatchOptions } from './types.js';

/** What the watcher needs of a registry. */
export interface Watchable {
  readonly directories: readonly SkillDirectory[];
  readonly agentDirectories?: readonly SkillDirectory[];
  current(): RegistrySnapshot;
  reload(): Promise<VFileMessage[]>;
}

/** Platforms whose fs.watch can watch a tree with one native handle. Linux cannot (Node emulates it file by file). */
const NATIVE_RECURSIVE = process.platform === 'darwin' || process.platform === 'win32';

/**
 * On Linux every skill folder needs its own watch. Folders that hold a skill are always watched; of the rest
 * (where a SKILL.md may appear later) at most this many per skills folder, so a folder with thousands of
 * unrelated sub-folders cannot exhaust the inotify budget.
 */
export const MAX_EMPTY_FOLDER_WATCHES = 1000;

interface Target {
  path: string;
  recursive: boolean;
  /** For a watch on the nearest existing ancestor of a missing skills folder: the name that leads towards it. */
  only?: string;
}

interface Active {
  watcher: FSWatcher;
  ino: number;
}

/** Watches the registry's skills and agents folders and reloads it, debounced, whenever something in them changes. */
export function watchDirectories(registry: Watchable, options: WatchOptions): RegistryWatcher {
  const debounceMs = options.debounceMs ?? 150;
  const active = new Map<string, Active>();
  const reported = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const fail = (error: unknown, path: string) => {
    if (closed || reported.has(path)) return;
    reported.add(path);
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    options.onError?.(new RegistryError('watch-failed', `Cannot watch ${path} (${code})`, { cause: error }));
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(fire, debounceMs);
    timer.unref();
  };

  const fire = async () => {
    try {
      const messages = await registry.reload();
      if (closed) return;
      // A folder that appeared between the scan and its new watch may already hold a SKILL.md: look once more.
      if (sync() > 0) schedule();
      options.onReload?.(messages);
    } catch (error) {
      if (!closed) options.onError?.(error instanceof Error ? error : new Error(String(error)));
    }
  };

  /** Brings the set of watches in line with the folders as they are now; returns how many new folders it watches. */
  const sync = (): number => {
    const wanted = new Map<string, Target>();
    for (const directory of registry.directories) {
      for (const target of targetsFor(directory.path, registry)) wanted.set(key(target), target);
    }
    // Agents are files directly in their folder: one watch on the folder sees them come, change and go.
    for (const directory of registry.agentDirectories ?? []) {
      const targets =
        inode(directory.path) === undefined
          ? ancestorTarget(directory.path)
          : [{ path: directory.path, recursive: false }];
      for (const target of targets) wanted.set(key(target), target);
    }
    for (const [id, entry] of active) {
      const target = wanted.get(id);
      if (!target || inode(target.path) !== entry.ino) {
        entry.watcher.close();
        active.delete(id);
      }
    }
    let added = 0;
    for (const [id, target] of wanted) {
      if (active.has(id)) continue;
      const ino = inode(target.path);
      if (ino === undefined) continue;
      try {
        const watcher = watch(
          target.path,
          { recursive: target.recursive, persistent: false },
          (_event, name) => {
            if (target.only === undefined || name === null || String(name) === target.only) schedule();
          },
        );
        watcher.on('error', (error) => {
          watcher.close();
          if (active.get(id)?.watcher === watcher) active.delete(id);
          if (
            (error as NodeJS.ErrnoException).code !== 'ENOENT' &&
            (error as NodeJS.ErrnoException).code !== 'EPERM'
          ) {
            fail(error, target.path);
          }
          schedule();
        });
        active.set(id, { watcher, ino });
        reported.delete(target.path);
        added++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') fail(error, target.path);
      }
    }
    return added;
  };

  sync();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const entry of active.values()) entry.watcher.close();
      active.clear();
    },
  };
}

function key(target: Target): string {
  return `${target.recursive ? 'r' : 'n'}:${target.only ?? ''}:${target.path}`;
}

function inode(path: string): number | undefined {
  try {
    const info = statSync(path);
    return info.isDirectory() ? info.ino : undefined;
  } catch {
    return undefined;
  }
}

function targetsFor(root: string, registry: Watchable): Target[] {
  if (inode(root) === undefined) return ancestorTarget(root);
  if (NATIVE_RECURSIVE) return [{ path: root, recursive: true }];
  const targets: Target[] = [{ path: root, recursive: false }];
  const withSkills = new Set<string>();
  for (const skill of registry.current().skills) {
    const rel = relative(root, skill.dir);
    if (rel !== '' && !rel.startsWith('..') && !rel.includes(sep)) withSkills.add(rel);
  }
  let others = 0;
  let names: string[] = [];
  try {
    names = readdirSync(root).sort();
  } catch {
    // Unreadable now: the reload reports it; the root watch still tells us when that changes.
  }
  for (const name of names) {
    const path = join(root, name);
    if (withSkills.has(name)) targets.push({ path, recursive: false });
    else if (others < MAX_EMPTY_FOLDER_WATCHES && inode(path) !== undefined) {
      others++;
      targets.push({ path, recursive: false });
    }
  }
  return targets;
}

/** A missing folder: watch the closest folder that exists for the step towards it. */
function ancestorTarget(root: string): Target[] {
  let child = root;
  for (let parent = dirname(root); parent !== child; child = parent, parent = dirname(parent)) {
    if (inode(parent) !== undefined) return [{ path: parent, recursive: false, only: basename(child) }];
  }
  return [];
}
