import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { parseFailed } from './diagnostics.js';
import { skipped } from './discover.js';
import type { ParseAgentResult } from './parse-agent.js';
import { failure, mapLimited, readAuthoredText } from './read-file.js';
import { cacheable, parseCacheKey, type SkillCache } from './skill-cache.js';
import type { AgentDefinition } from './types.js';

/** How many agent files are read at once. */
const CONCURRENCY = 16;

/** What an agents folder yielded: the usable agents, and every file's messages. */
export interface DiscoverAgentsResult {
  agents: AgentDefinition[];
  messages: VFileMessage[];
}

/**
 * Reads and parses one agent file (at most 1 MiB, a regular file or a link to one). Never rejects: a file that
 * cannot be read is an `unreadable-file` or `file-too-large` message. With a `cache`, an unchanged file is not
 * parsed again and an agent parsed without any message is offered to it, as `discoverSkills` does for skills.
 */
export async function loadAgentFile(
  file: string,
  options: { cache?: SkillCache } = {},
): Promise<ParseAgentResult> {
  const path = resolve(file);
  try {
    const text = await readAuthoredText(path, basename(path));
    if (typeof text !== 'string') return text;
    const key = options.cache && parseCacheKey('agent', path, text);
    const cached = key === undefined ? undefined : (options.cache!.get(key) as AgentDefinition | undefined);
    if (cached) return { agent: cached, messages: [] };
    const { parseAgent } = await import('./parse-agent.js');
    const result = parseAgent(text, { path });
    if (key !== undefined && result.agent && result.messages.length === 0 && cacheable(result.agent))
      options.cache!.set(key, result.agent);
    return result;
  } catch (error) {
    return parseFailed(path, error);
  }
}

/**
 * Finds the agents of an agents folder: every `*.md` file directly in `dir` (not dot-files, not sub-folders), each an
 * agent named by its file (`reviewer.md` → `reviewer`). Files are read 16 at a time; one bad file never stops the
 * others. Agents come back in file-name order, only those without fatal messages. A missing or unreadable `dir` is one
 * `unreadable-file` message. It never rejects.
 */
export async function discoverAgents(
  dir: string,
  options: { cache?: SkillCache } = {},
): Promise<DiscoverAgentsResult> {
  const root = resolve(dir);
  const entries = await readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error);
  if (entries instanceof Error) {
    const { messages } = failure(
      root,
      'unreadable-file',
      `Cannot read agents folder: ${entries.code ?? entries.message}`,
    );
    return { agents: [], messages };
  }
  const files = entries
    .filter((e) => !skipped(e.name) && e.name.endsWith('.md') && !e.isDirectory())
    .map((e) => e.name)
    .sort();
  const results = await mapLimited(files, CONCURRENCY, (name) => loadAgentFile(join(root, name), options));
  const agents: AgentDefinition[] = [];
  const messages: VFileMessage[] = [];
  for (const result of results) {
    if (result.agent) agents.push(result.agent);
    messages.push(...result.messages);
  }
  return { agents, messages };
}
