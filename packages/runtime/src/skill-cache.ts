import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { AgentDefinition, Skill, SkillCache } from '@birdie/skill-parser';

type Definition = Skill | AgentDefinition;

import { userHome } from './paths.js';

/** The layout of the file; another one is ignored (and replaced on the next save). */
const FORMAT = 1;

/**
 * Where parsed skills are kept between runs: the user's cache folder (`$XDG_CACHE_HOME/birdie`, else
 * `~/.cache/birdie`), not birdie's own folder: deleting it loses nothing but the time to parse again.
 */
export function skillCachePath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(userHome(env), '.cache'), 'birdie', 'skills.json');
}

/**
 * The parsed skills and agents of the user's own folders (bundled, user, explicit), read at start so that a run whose skills did
 * not change parses none of them. The parser owns the keys (they cover its build, the file and its folder), so an
 * entry is either exactly right or never asked for. Best effort throughout: an unreadable, damaged or unwritable file
 * only means the skills are parsed again.
 */
export class SkillCacheFile implements SkillCache {
  private readonly stored: Record<string, Definition>;
  /** What this process looked up or parsed: the next save keeps only these, so the file never grows stale. */
  private readonly used = new Map<string, Definition>();
  private changed = false;

  constructor(readonly file: string) {
    this.stored = readEntries(file);
  }

  get(key: string): Definition | undefined {
    const found = Object.hasOwn(this.stored, key) ? this.stored[key] : undefined;
    if (found) this.used.set(key, found);
    return found;
  }

  set(key: string, definition: Definition): void {
    this.used.set(key, definition);
    this.changed = true;
  }

  /** Writes the file when something was parsed since it was read (a new temp file, renamed over it). */
  async save(): Promise<void> {
    if (!this.changed) return;
    this.changed = false;
    const dir = dirname(this.file);
    const temp = join(dir, `.${basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(temp, JSON.stringify({ format: FORMAT, skills: Object.fromEntries(this.used) }), {
        flag: 'wx',
        mode: 0o600,
      });
      await rename(temp, this.file);
    } catch {
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }
}

function readEntries(file: string): Record<string, Definition> {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { format?: unknown; skills?: unknown };
    const { skills } = data;
    if (data.format !== FORMAT || typeof skills !== 'object' || skills === null || Array.isArray(skills))
      return {};
    return skills as Record<string, Definition>;
  } catch {
    return {};
  }
}
