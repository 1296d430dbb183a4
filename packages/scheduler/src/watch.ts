import { relative, resolve, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import picomatch from 'picomatch';
import type { Clock } from './clock.js';

export interface WatchOptions {
  /** The folder the patterns are relative to (the agent's project). */
  root: string;
  /** Paths or globs relative to `root`. */
  patterns: readonly string[];
  /** Seconds of quiet after the last change before `onChange` (default 0.5). */
  debounce?: number;
  clock: Clock;
  /** The changed paths (relative to `root`, sorted, each once) after a quiet spell. */
  onChange(paths: string[]): void;
  onError?(error: unknown): void;
}

export interface FileWatch {
  /** Resolves once the initial scan is done: changes after it are seen. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const IGNORED_DIRS = new Set(['node_modules', '.git']);

/**
 * Watches `patterns` under `root`. chokidar (v4+) takes no globs: it watches each pattern's base folder (a literal
 * path is its own base) and picomatch decides which changed paths count.
 */
export function watchFiles(options: WatchOptions): FileWatch {
  const root = resolve(options.root);
  const bases = new Set<string>();
  const matchers = options.patterns.map((pattern) => {
    const scan = picomatch.scan(pattern);
    bases.add(resolve(root, scan.isGlob ? scan.base || '.' : pattern));
    return picomatch(pattern, { dot: true });
  });
  const matches = (rel: string) => matchers.some((m) => m(rel));
  const changed = new Set<string>();
  let timer: unknown;
  let closed = false;
  const flush = () => {
    timer = undefined;
    if (closed || changed.size === 0) return;
    const paths = [...changed].sort();
    changed.clear();
    options.onChange(paths);
  };
  const seen = (path: string) => {
    const rel = relative(root, path).split(sep).join('/');
    if (rel.startsWith('..') || !matches(rel)) return;
    changed.add(rel);
    if (timer !== undefined) options.clock.clearTimer(timer);
    timer = options.clock.setTimer(flush, (options.debounce ?? 0.5) * 1000);
  };
  // One watcher per base folder: with several paths, chokidar 5 says `ready` before it watches them all.
  const watchers: FSWatcher[] = [...bases].map((base) => {
    const watcher = watch(base, {
      ignoreInitial: true,
      ignored: (path) => path.split(sep).some((part) => IGNORED_DIRS.has(part)),
    });
    for (const event of ['add', 'change', 'unlink'] as const) watcher.on(event, seen);
    watcher.on('error', (error) => options.onError?.(error));
    return watcher;
  });
  const ready = Promise.all(
    watchers.map((watcher) => new Promise<void>((done) => watcher.once('ready', () => done()))),
  ).then(() => undefined);
  return {
    ready,
    async close() {
      closed = true;
      if (timer !== undefined) options.clock.clearTimer(timer);
      await Promise.all(watchers.map((watcher) => watcher.close()));
    },
  };
}
