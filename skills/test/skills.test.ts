import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveEntrypoint } from '@birdie/entrypoints';
import { discoverSkills, type Skill } from '@birdie/skill-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { skillsRoot } from './helpers.js';

const EXPECTED = {
  filesystem: {
    kind: 'tool',
    tools: [
      'read_file',
      'list_dir',
      'write_file',
      'append_file',
      'edit_file',
      'create_directory',
      'search_files',
      'glob',
    ],
  },
  'git-workflow': { kind: 'knowledge', tools: [] },
  'mcp-demo': { kind: 'mcp', tools: [] },
  memory: { kind: 'tool', tools: ['remember', 'recall', 'forget'] },
  scheduler: { kind: 'tool', tools: ['schedule_task', 'list_tasks', 'cancel_task'] },
  shell: { kind: 'tool', tools: ['run_bash'] },
  ssh: { kind: 'knowledge', tools: [] },
  todo: { kind: 'tool', tools: ['todo_create_plan', 'todo_complete_step', 'todo_show_plan'] },
  weather: { kind: 'tool', tools: ['get_current_weather', 'get_forecast', 'find_place'] },
  web: { kind: 'tool', tools: ['web_fetch'] },
  'web-search': { kind: 'tool', tools: ['web_search'] },
} as const;

let skills: Skill[];
let messages: Awaited<ReturnType<typeof discoverSkills>>['messages'];

beforeAll(async () => {
  ({ skills, messages } = await discoverSkills(skillsRoot));
});

const byName = (name: string) => {
  const skill = skills.find((candidate) => candidate.name === name);
  if (!skill) throw new Error(`no skill ${name}`);
  return skill;
};

describe('the bundled skills', () => {
  it('parse with no diagnostics at all: no fatal message, no warning, no info', () => {
    expect(messages.map(String)).toEqual([]);
    expect(skills.map((skill) => skill.name)).toEqual(Object.keys(EXPECTED));
  });

  it('are every skill folder there is, each named after its folder, in kebab-case', async () => {
    const folders = (await readdir(skillsRoot, { withFileTypes: true }))
      // Dot-folders (.turbo) are skipped by discovery too; bench/ and test/ hold no skill.
      .filter(
        (entry) =>
          entry.isDirectory() &&
          !entry.name.startsWith('.') &&
          !['bench', 'node_modules', 'test'].includes(entry.name),
      )
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(Object.keys(EXPECTED));
    for (const skill of skills) {
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.dir).toBe(join(skillsRoot, skill.name));
    }
  });

  it('are all disabled by default', () => {
    expect(skills.filter((skill) => skill.enabledByDefault)).toEqual([]);
  });

  it('have the kind and tools each one promises', () => {
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const skill = byName(name);
      expect({ name, kind: skill.kind, tools: skill.tools.map((tool) => tool.name) }).toEqual({
        name,
        kind: expected.kind,
        tools: [...expected.tools],
      });
    }
  });

  it('resolve every tool entrypoint; only the shell is raw (and so needs approval)', () => {
    const raw: string[] = [];
    for (const skill of skills) {
      for (const tool of skill.tools) {
        const entrypoint = resolveEntrypoint(tool.entrypoint, { skillDir: skill.dir, schema: tool.schema });
        if (entrypoint.raw) raw.push(tool.name);
      }
    }
    expect(raw).toEqual(['run_bash']);
  });

  it('point every node: entrypoint at an exported function', async () => {
    for (const skill of skills) {
      for (const tool of skill.tools.filter((candidate) => candidate.entrypoint.startsWith('node:'))) {
        const [file, name] = tool.entrypoint.slice('node:'.length).split('#') as [string, string];
        const module = (await import(join(skill.dir, file))) as Record<string, unknown>;
        expect(typeof module[name], `${skill.name}/${file}#${name}`).toBe('function');
      }
    }
  });

  it('switch on the builtin memory tools of the agent by name (builtin:)', () => {
    const memory = byName('memory');
    expect(memory.tools.map((tool) => tool.entrypoint)).toEqual([
      'builtin:remember',
      'builtin:recall',
      'builtin:forget',
    ]);
    expect(memory.body).toBeNull();
  });

  it('give the todo skill always-injected prose and keep ## Tools out of it', () => {
    const todo = byName('todo');
    expect(todo.alwaysInject).toBe(true);
    expect(todo.body).toContain('todo_create_plan');
    expect(todo.body).not.toContain('## Tools');
    expect(skills.filter((skill) => skill.alwaysInject).map((skill) => skill.name)).toEqual(['todo']);
  });

  it('give ssh its triggers and its whole body', () => {
    const ssh = byName('ssh');
    expect(ssh.triggers).toEqual(expect.arrayContaining(['ssh', 'scp', 'rsync', 'remote server']));
    expect(ssh.body).toContain('BatchMode=yes');
  });

  it('keep git-workflow to the Agent Skills fields and list its references for progressive loading', () => {
    const git = byName('git-workflow');
    expect(git.license).toBe('Apache-2.0');
    expect(git.compatibility).toMatch(/git/);
    expect(git.metadata).toEqual({ author: 'birdie', version: '1.0.0' });
    expect(git.resources).toEqual([
      'references/branching.md',
      'references/commit-messages.md',
      'references/conflicts.md',
      'references/undoing-changes.md',
    ]);
    for (const reference of git.resources) expect(git.body).toContain(reference);
    // in the sandbox .git is read-only: the skill says what works and what the user runs instead
    expect(git.body).toContain('`.git` is read-only');
    expect(git.body).toContain('ask them to run them in their own terminal');
  });

  it('declare the mcp-demo server for the running Node, with its script resolved inside the skill', () => {
    expect(byName('mcp-demo').mcpServer).toEqual({
      transport: 'stdio',
      command: 'node',
      args: [join(skillsRoot, 'mcp-demo', 'dist', 'server.js')],
      timeout: 20,
    });
  });

  it('pin the exports of each tool module, so a renamed function cannot silently break an entrypoint', async () => {
    const exportsOf = async (file: string) => Object.keys(await import(join(skillsRoot, file))).sort();
    expect(await exportsOf('filesystem/tools.mjs')).toEqual([
      'append_file',
      'create_directory',
      'edit_file',
      'glob',
      'list_dir',
      'preview_append_file',
      'preview_create_directory',
      'preview_edit_file',
      'preview_write_file',
      'read_file',
      'search_files',
      'write_file',
    ]);
    expect(await exportsOf('todo/tools.mjs')).toEqual(['complete_step', 'create_plan', 'show_plan']);
    expect(await exportsOf('weather/tools.mjs')).toEqual(['get_current_weather', 'get_forecast']);
    expect(await exportsOf('web/tools.mjs')).toEqual(['web_fetch']);
    expect(await exportsOf('web-search/tools.mjs')).toEqual(['WebSearchError', 'search']);
  });
});
