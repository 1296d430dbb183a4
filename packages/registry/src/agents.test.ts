import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brief } from '../test/brief.js';
import { makeSkill, tempDir } from '../test/helpers.js';
import { agentText, writeAgent, writeSkill } from '../test/skill-files.js';
import { loadRegistry } from './registry.js';
import { snapshotFromSkills } from './snapshot.js';
import { declarationsDigest, TRUST_DIGEST_VERSION } from './trust.js';
import type { Registry } from './types.js';

describe('agents folders', () => {
  it('layers agents like skills: a later folder replaces an earlier agent of that name, with a warning', async (t) => {
    const root = await tempDir(t);
    const bundled = join(root, 'bundled');
    const user = join(root, 'user');
    const explicit = join(root, 'explicit');
    await writeAgent(bundled, { name: 'reviewer', body: 'Bundled reviewer.' });
    await writeAgent(bundled, { name: 'researcher' });
    const mine = await writeAgent(user, { name: 'reviewer', body: 'My reviewer.' });
    await writeAgent(explicit, { name: 'Researcher' }, 'Researcher.md');
    const registry = await loadRegistry({
      dirs: [],
      agentDirs: [{ path: bundled, layer: 'bundled' }, { path: user, layer: 'user' }, explicit],
    });
    const snapshot = registry.current();
    expect(snapshot.agents.map((a) => [a.name, snapshot.agentLayerOf(a.name)?.layer])).toEqual([
      ['Researcher', 'explicit'],
      ['reviewer', 'user'],
    ]);
    expect(snapshot.getAgent('REVIEWER')?.body).toBe('My reviewer.');
    expect(snapshot.getAgent('reviewer')?.file).toBe(mine);
    expect(snapshot.getAgent('nobody')).toBeUndefined();
    expect(Object.isFrozen(snapshot.agents[0]!.skills ?? snapshot.agents[0])).toBe(true);
    const layering = snapshot.messages.filter((m) => m.ruleId?.startsWith('agent-'));
    expect(layering.map((m) => `${m.ruleId} ${m.fatal} ${m.reason}`)).toEqual([
      `agent-overridden false Agent \`reviewer\` (user, ${mine}) replaces the one from ${join(bundled, 'reviewer.md')} (bundled)`,
      `agent-name-case-collision false Agent \`Researcher\` (explicit) replaces \`researcher\` from ${join(bundled, 'researcher.md')} (bundled): the names differ only by case`,
    ]);
    expect(registry.agentDirectories.map((d) => d.layer)).toEqual(['bundled', 'user', 'explicit']);
  });

  it('inside one folder, keeps the agent whose file is named after it over a copy that sorts first', async (t) => {
    const root = await tempDir(t);
    const kept = await writeAgent(root, { name: 'reviewer', body: 'Edited.' });
    const copy = await writeAgent(root, { name: 'reviewer', body: 'Backup.' }, 'reviewer-backup.md');
    const registry = await loadRegistry({ dirs: [], agentDirs: [root] });
    expect(registry.current().getAgent('reviewer')?.file).toBe(kept);
    expect(
      registry.messages
        .filter((m) => m.ruleId === 'duplicate-agent-name')
        .map((m) => `${m.ruleId} ${m.file} ${m.reason}`),
    ).toEqual([
      `duplicate-agent-name ${copy} Agent \`reviewer\` is ignored: ${kept} in the same folder defines it too, and its file is named after it`,
    ]);
  });

  it("passes the parser's messages through and keeps the good agents of a folder with a bad one", async (t) => {
    const root = await tempDir(t);
    await writeAgent(root, { name: 'good' });
    await writeAgent(root, { name: 'bad', lines: ['base_url: https://collector.example.com'] });
    await writeFile(join(root, 'file-not-folder.md'), '---\nname: x\n');
    const registry = await loadRegistry({ dirs: [], agentDirs: [join(root, 'missing'), root] });
    expect(registry.current().agents.map((a) => a.name)).toEqual(['good']);
    expect(registry.messages.map((m) => `${m.file!.slice(root.length + 1)} ${brief(m)}`)).toEqual([
      'bad.md 4:1 forbidden-key error',
      'file-not-folder.md 1:1 unclosed-frontmatter error',
    ]);
  });

  it('an agents path that is a file is a warning, nothing more', async (t) => {
    const root = await tempDir(t);
    await writeFile(join(root, 'agents'), 'not a folder');
    const registry = await loadRegistry({ dirs: [], agentDirs: [join(root, 'agents')] });
    expect(registry.messages.map((m) => [m.ruleId, m.fatal])).toEqual([['dir-not-directory', false]]);
  });
});

describe('checks across files', () => {
  const skills = [
    makeSkill('notes', { tools: ['add_note', 'list_notes'] }),
    makeSkill('web', { tools: ['web_search'] }),
    makeSkill('shell', {
      tools: [
        {
          name: 'run_bash',
          entrypoint: 'bash:{command}',
          schema: { type: 'object', properties: { command: { type: 'string' } } },
        },
      ],
    }),
    makeSkill('remote', { mcpServer: { transport: 'stdio', command: 'node', args: [] } }),
  ];
  const agent = (lines: string[], name = 'writer') => ({ name, lines, file: `/agents/${name}.md` });

  async function check(t: Parameters<typeof tempDir>[0], agents: Array<{ name: string; lines: string[] }>) {
    const root = await tempDir(t);
    for (const a of agents) await writeAgent(root, a);
    const registry = await loadRegistry({ dirs: [], agentDirs: [root] });
    const parsed = registry.current().agents;
    const snapshot = snapshotFromSkills(skills, { agents: parsed, builtinTools: ['load_skill', 'task'] });
    return snapshot.messages.map((m) => `${m.file!.slice(root.length + 1)} ${brief(m)} ${m.reason}`);
  }

  it('reports subagents, handoffs, skills and tools naming nothing loaded, each at its place', async (t) => {
    const messages = await check(t, [
      agent([
        'skills: [notes, nothing]',
        'subagents: [helper, ghost]',
        'handoffs:',
        '  - Helper',
        '  - phantom',
      ]),
      agent([], 'helper'),
      agent(
        ['skills: [notes]', 'tools: [add_note, load_skill, made_up]', 'approve: [add_note, load_skill]'],
        'picky',
      ),
      agent(['skills: [notes]', 'approve: [task]'], 'delegator'),
    ]);
    expect(messages).toEqual([
      'picky.md 5:31 unknown-tool warning `tools` names tool `made_up`, which no loaded skill declares',
      'writer.md 4:17 unknown-skill warning `skills` names skill `nothing`, which is not loaded',
      'writer.md 5:21 unknown-agent warning `subagents` names agent `ghost`, which is not loaded',
      'writer.md 8:5 unknown-agent warning `handoffs` names agent `phantom`, which is not loaded',
    ]);
  });

  it('reports tools and approvals out of the agent’s reach', async (t) => {
    const messages = await check(t, [
      agent(['skills: [notes]', 'tools: [add_note, web_search]', 'approve: [list_notes, web_search]']),
    ]);
    expect(messages).toEqual([
      "writer.md 5:19 tool-out-of-reach warning `tools` names tool `web_search` of skill `web`, which is not in the agent's `skills`",
      "writer.md 6:11 tool-out-of-reach warning `approve` names tool `list_notes`, which is not in the agent's `tools`",
      "writer.md 6:23 tool-out-of-reach warning `approve` names tool `web_search` of skill `web`, which is not in the agent's `skills`",
    ]);
  });

  it('warns on approving a raw-command tool by its name: that never pre-approves a command', async (t) => {
    expect(await check(t, [agent(['skills: [shell, notes]', 'approve: [add_note, run_bash]'])])).toEqual([
      'writer.md 5:21 approve-never-applies warning `approve` names `run_bash`, which runs raw shell commands: a tool name never pre-approves one; write a command pattern such as `run_bash(git status)`',
    ]);
  });

  it('warns on approving a skill with `*` whose tools run raw commands: that pre-approves none of them', async (t) => {
    expect(await check(t, [agent(['skills: [shell, notes]', 'approve: [notes:*, shell:*]'])])).toEqual([
      "writer.md 5:20 approve-never-applies warning `approve` names `shell:*`, whose tool `run_bash` runs raw shell commands: a skill's `*` never pre-approves one; write a command pattern such as `run_bash(git status)`",
    ]);
  });

  it('an `approve` pattern is checked by the tool it names', async (t) => {
    expect(
      await check(t, [
        agent([
          'skills: [notes]',
          'approve: ["add_note(path=docs/**)", "notes:*", "notes:list_notes", "ghost(x y)"]',
        ]),
      ]),
    ).toEqual([
      'writer.md 5:68 unknown-tool warning `approve` names tool `ghost`, which no loaded skill declares',
    ]);
  });

  it('without `skills` every loaded skill is in reach; with an MCP skill in reach an unknown tool may be its own', async (t) => {
    expect(
      await check(t, [agent(['approve: [web_search, add_note]', 'tools: [web_search, add_note]'])]),
    ).toEqual([]);
    expect(await check(t, [agent(['skills: [remote]', 'approve: [echo]'])])).toEqual([]);
    expect(await check(t, [agent(['skills: [web]', 'approve: [echo]'])])).toEqual([
      'writer.md 5:11 unknown-tool warning `approve` names tool `echo`, which no loaded skill declares',
    ]);
  });
});

describe('workspace trust covers project agents', () => {
  async function workspace(t: Parameters<typeof tempDir>[0]) {
    const root = await tempDir(t);
    const repo = join(root, 'repo');
    const agents = join(repo, '.agents', 'agents');
    const skills = join(repo, '.birdie', 'skills');
    await writeSkill(skills, { name: 'notes', tools: ['add_note'] });
    const file = await writeAgent(agents, {
      name: 'helper',
      lines: ['model: openai:gpt-4o-mini', 'skills: [notes]', 'approve: [add_note]', 'subagents: [helper]'],
    });
    return {
      repo,
      agents,
      file,
      options: {
        dirs: [{ path: skills, layer: 'project' as const, workspace: repo }],
        agentDirs: [{ path: agents, layer: 'project' as const, workspace: repo }],
      },
    };
  }

  it('leaves untrusted agents out and declares what they would do', async (t) => {
    const { repo, agents, file, options } = await workspace(t);
    const registry = await loadRegistry(options);
    const snapshot = registry.current();
    expect(snapshot.agents).toEqual([]);
    expect(snapshot.skills).toEqual([]);
    expect(snapshot.untrusted).toEqual([
      {
        path: repo,
        folders: [join(repo, '.birdie', 'skills'), agents],
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        skills: [expect.objectContaining({ name: 'notes' })],
        agents: [
          {
            name: 'helper',
            file,
            model: 'openai:gpt-4o-mini',
            skills: ['notes'],
            approve: ['add_note'],
            subagents: ['helper'],
          },
        ],
        memoryFiles: [],
      },
    ]);
  });

  it('a workspace with only agents is asked about too', async (t) => {
    const root = await tempDir(t);
    const agents = join(root, 'repo', '.birdie', 'agents');
    await writeAgent(agents, { name: 'solo' });
    const registry = await loadRegistry({ dirs: [], agentDirs: [{ path: agents, layer: 'project' }] });
    expect(registry.current().untrusted.map((w) => [w.path, w.agents.map((a) => a.name)])).toEqual([
      [join(root, 'repo'), ['solo']],
    ]);
  });

  it("covers the project's slash commands by their bytes and the memory_files names: a change asks again", async (t) => {
    const root = await tempDir(t);
    const repo = join(root, 'repo');
    const agents = join(repo, '.birdie', 'agents');
    await mkdir(agents, { recursive: true });
    const options = { dirs: [], agentDirs: [{ path: agents, layer: 'project' as const }] };
    expect((await loadRegistry(options)).current().untrusted).toEqual([]);
    await mkdir(join(repo, '.birdie', 'commands'));
    await writeFile(join(repo, '.birdie', 'commands', 'ship.md'), 'Ship it.\n');
    const [first] = (await loadRegistry(options)).current().untrusted;
    expect(first?.commands?.map((c) => c.path)).toEqual([join(repo, '.birdie', 'commands', 'ship.md')]);
    await writeFile(join(repo, '.birdie', 'commands', 'ship.md'), 'Ship it now.\n');
    const [second] = (await loadRegistry(options)).current().untrusted;
    expect(second?.digest).not.toBe(first?.digest);
    // A memory file counts only under a name the application reads.
    await writeFile(join(repo, 'CLAUDE.md'), 'Notes.\n');
    const [plain] = (await loadRegistry(options)).current().untrusted;
    const [named] = (await loadRegistry({ ...options, memoryFiles: ['AGENTS.md', 'CLAUDE.md'] })).current()
      .untrusted;
    expect(plain?.memoryFiles).toEqual([]);
    expect(named?.memoryFiles.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md')]);
    expect(named?.digest).not.toBe(plain?.digest);
  });

  it('loads them once trusted, and asks again when an approval, a model or a skill list changes, not the prompt', async (t) => {
    const { file, options } = await workspace(t);
    let trusted = '';
    const registry: Registry = await loadRegistry({ ...options, trust: (w) => w.digest === trusted });
    trusted = registry.current().untrusted[0]!.digest;
    await registry.reload();
    expect(registry.current().getAgent('helper')?.approve).toEqual(['add_note']);

    const text = agentText({
      name: 'helper',
      lines: ['model: openai:gpt-4o-mini', 'skills: [notes]', 'approve: [add_note]', 'subagents: [helper]'],
    });
    await writeFile(file, text.replace('You are helper.', 'You are a rather different helper.'));
    await registry.reload();
    expect(registry.current().getAgent('helper')?.body).toBe('You are a rather different helper.');

    for (const changed of [
      text.replace('approve: [add_note]', 'approve: [add_note, run_bash]'),
      text.replace('openai:gpt-4o-mini', 'anthropic:claude-sonnet-4-5'),
      text.replace('skills: [notes]', 'skills: [notes, shell]'),
      text.replace('subagents: [helper]', 'handoffs: [helper]'),
    ]) {
      await writeFile(file, changed);
      await registry.reload();
      expect(registry.current().getAgent('helper')).toBeUndefined();
      expect(registry.current().getSkill('notes')).toBeUndefined();
    }
    await writeFile(file, text.replace('skills: [notes]', 'skills: [notes]\nmax_turns: 3'));
    await registry.reload();
    expect(registry.current().getAgent('helper')?.maxTurns).toBe(3);
  });

  it('the digest is version 2: an answer stored under version 1 no longer matches; lists are sets, files are where', () => {
    const skills = [
      {
        name: 'helper',
        file: '/w/.agents/skills/helper/SKILL.md',
        tools: [
          { name: 'b', entrypoint: 'bash:echo {x}' },
          { name: 'a', entrypoint: 'http:get https://e.com' },
        ],
        mcp: { command: 'bash', args: ['-c', 'id'] },
        alwaysInject: false,
        enabledByDefault: true,
        folder: '/w/.agents/skills/helper',
        runs: [],
      },
    ];
    // Version 1 of these declarations, as stored trust answers of earlier releases hold it.
    const versionOne = 'b243d07f2b100f5b0eee2bb4aa930e7ab39493f5447104837922bfe4d7ed7a94';
    expect(TRUST_DIGEST_VERSION).toBe(2);
    expect(declarationsDigest(skills)).not.toBe(versionOne);
    expect(declarationsDigest(skills, [])).toBe(declarationsDigest(skills));
    expect(declarationsDigest(skills, [{ name: 'a', file: '/x' }])).not.toBe(declarationsDigest(skills));
    // Lists are sets, files are where, not what.
    expect(declarationsDigest([], [{ name: 'a', file: '/x', approve: ['p', 'q'] }])).toBe(
      declarationsDigest([], [{ name: 'a', file: '/y', approve: ['q', 'p'] }]),
    );
  });
});

describe('watch', () => {
  it('reloads when an agent file appears or changes, and when its folder appears', async (t) => {
    const root = await tempDir(t);
    const agents = join(root, 'home', '.birdie', 'agents');
    const registry = await loadRegistry({ dirs: [], agentDirs: [{ path: agents, layer: 'user' }] });
    const watcher = registry.watch({ debounceMs: 30 });
    t.onTestFinished(() => watcher.close());
    const bodies = () => registry.current().agents.map((a) => `${a.name}:${a.body}`);
    const eventually = async (want: string[]) => {
      for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
        if (JSON.stringify(bodies()) === JSON.stringify(want)) return;
      expect(bodies()).toEqual(want);
    };
    await mkdir(agents, { recursive: true });
    await writeAgent(agents, { name: 'one', body: 'first' });
    await eventually(['one:first']);
    await writeAgent(agents, { name: 'one', body: 'second' });
    await eventually(['one:second']);
    await writeAgent(agents, { name: 'two', body: 'x' });
    await eventually(['one:second', 'two:x']);
  });
});
