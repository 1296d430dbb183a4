// Reading a `--cpu-prof` file of the bundled CLI (profile.mjs, serve-profile.mjs): positions in dist chunks mapped
// back to their sources through the chunks' sourcemaps, and self time summed by whatever key the caller picks.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { sourceName } from '../test/helpers/loaded-modules.mjs';

const maps = new Map();

/** The source (repository-relative) and name behind a position in a dist chunk; undefined elsewhere. */
export function sourceAt(url, line, column) {
  if (!url.startsWith('file:') || !url.includes('/dist/')) return undefined;
  let map = maps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  const entry = map?.findEntry(line, column);
  return entry?.originalSource
    ? { source: sourceName(fileURLToPath(url), entry.originalSource), name: entry.name }
    : undefined;
}

/** Self time (ms) of one profile by `keyOf(callFrame)`, and the profile's wall time (ms). */
export function selfTimes(file, keyOf) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const ticks = new Map();
  for (const [i, id] of profile.samples.entries())
    ticks.set(id, (ticks.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const out = new Map();
  for (const node of profile.nodes) {
    const us = ticks.get(node.id);
    if (!us) continue;
    const key = keyOf(node.callFrame);
    out.set(key, (out.get(key) ?? 0) + us / 1000);
  }
  return { out, wall: (profile.endTime - profile.startTime) / 1000 };
}
