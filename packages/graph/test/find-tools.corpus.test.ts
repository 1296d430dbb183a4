import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import { corpusRoot, makeTempDir, writeTree } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../src/index.js';
import { fakeOpenAI } from './fake-openai.js';
import { generatedSkills, skillFiles } from './fixtures/many-tools/tools.mjs';
import { collect, toolMessages, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** The corpus's birdie tool skills, read in place (linked, not copied); `mcp_demo` needs a server it does not ship. */
const CORPUS_SKILLS = ['duckduckgo', 'filesystem', 'shell', 'ssh', 'todo', 'weather'];

/** Twenty requests as a person would write them, for the corpus skills' tools. */
const QUERIES = [
  { query: 'search the web for the latest news about the election', tool: 'duckduckgo_search' },
  { query: 'look something up online', tool: 'duckduckgo_search' },
  { query: 'find current information on the internet about the match', tool: 'duckduckgo_search' },
  { query: 'show me what is in config.yaml', tool: 'read_file' },
  { query: 'read the contents of a file', tool: 'read_file' },
  { query: 'what files are in this folder', tool: 'list_dir' },
  { query: 'list the directory with permissions and sizes', tool: 'list_dir' },
  { query: 'save this text to notes.txt', tool: 'write_file' },
  { query: 'replace the content of a file', tool: 'write_file' },
  { query: 'add a line at the end of the log file', tool: 'append_file' },
  { query: 'append to a file', tool: 'append_file' },
  { query: 'make a new folder called build', tool: 'create_directory' },
  { query: 'mkdir -p src/components', tool: 'create_directory' },
  { query: 'run npm test in the terminal', tool: 'run_bash' },
  { query: 'execute a shell command', tool: 'run_bash' },
  { query: 'what is the temperature in Vienna right now', tool: 'get_weather' },
  { query: 'current weather conditions in Tokyo', tool: 'get_weather' },
  { query: 'humidity and wind in Oslo today', tool: 'get_weather' },
  { query: 'will it rain in London over the next five days', tool: 'get_forecast' },
  { query: 'weather forecast for the week', tool: 'get_forecast' },
];

describe('find_tools over the corpus birdie skills among 1,000 tools', () => {
  it('finds the right tool in the first 5 results for 20 written queries', async () => {
    const dir = await makeTempDir('birdie-find-tools-corpus-');
    cleanups.push(() => dir.cleanup());
    const corpus = join(corpusRoot(), 'birdie');
    for (const name of CORPUS_SKILLS) await symlink(join(corpus, name), join(dir.path, name));
    // Look-alike business tools from this repository's fixture fill the session up to 1,000 tools.
    await writeTree(dir.path, skillFiles(generatedSkills(1000 - 11)));
    const registry = await loadRegistry({ dirs: [dir.path] });
    const names = registry.current().skills.map((s) => s.name);
    const policy = new SkillPolicy(registry, { defaults: names });
    const corpusTools = policy.allowedTools('q0').filter((t) => !t.skill.tags.includes('business'));
    expect(corpusTools.map((t) => t.tool.name).sort()).toEqual(
      [...new Set(QUERIES.map((q) => q.tool)), 'todo_complete_step', 'todo_create_plan'].sort(),
    );
    expect(policy.allowedTools('q0').length).toBe(1000);

    const { model } = await fakeOpenAI(
      cleanups,
      (request) => {
        const last = request.messages.at(-1);
        return last?.role === 'user'
          ? { call: { name: 'find_tools', args: { query: String(last.content) } } }
          : { text: 'done' };
      },
      { maxTools: 128 },
    );
    const agent = createAgent({ model: model('gpt-test'), registry, policy, options: { cwd: dir.path } });
    cleanups.push(() => agent.close());
    const misses: string[] = [];
    for (const [i, q] of QUERIES.entries()) {
      await collect(agent.stream(q.query, { threadId: `q${i}` }));
      const [result] = await toolMessages(agent, `q${i}`);
      const found = [...String(result?.content).matchAll(/^- (\S+)/gm)].map((m) => m[1]);
      if (!found.slice(0, 5).includes(q.tool)) misses.push(`${q.query} → ${q.tool}: got ${found.join(', ')}`);
    }
    expect(misses).toEqual([]);
  });
});
