import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import {
  type AgentSpec,
  type ApprovalRule,
  ApprovalRuleError,
  type CreateAgentOptions,
  compileRules,
  createAgent,
  describeMiss,
  inapplicableRuleReason,
  isApprovalRuleError,
  mapAllowedTools,
  parseApprovalPattern,
  suggestCommandPattern,
} from '../src/index.js';
import {
  agentSpec,
  collect,
  knowledgeSkill,
  ofType,
  skillsFixture,
  stringArg,
  textOf,
  toolMessages,
  toolSkill,
  useCleanups,
  withAgents,
} from './helpers.js';

const user = (effect: ApprovalRule['effect'], pattern: string): ApprovalRule => ({
  pattern,
  effect,
  source: { kind: 'user' },
});

function badRule(pattern: string): { offset: number; message: string } {
  try {
    parseApprovalPattern(pattern);
  } catch (error) {
    if (isApprovalRuleError(error)) {
      expect(error.code).toBe('bad-approval-rule');
      return { offset: error.offset, message: error.message };
    }
    throw error;
  }
  throw new Error(`${pattern} parsed`);
}

describe('parseApprovalPattern', () => {
  it('reads tools, skills, commands and argument constraints', () => {
    expect(parseApprovalPattern('read_file')).toEqual({ text: 'read_file', tool: 'read_file' });
    expect(parseApprovalPattern('filesystem:*')).toEqual({ text: 'filesystem:*', skill: 'filesystem' });
    expect(parseApprovalPattern('filesystem:write_file')).toMatchObject({
      skill: 'filesystem',
      tool: 'write_file',
    });
    expect(parseApprovalPattern('run_bash(npm test *)').command).toEqual([
      { kind: 'literal', text: 'npm' },
      { kind: 'literal', text: 'test' },
      { kind: 'any-words' },
    ]);
    expect(parseApprovalPattern("run_bash(git commit -m 'a b' '*')").command).toEqual([
      { kind: 'literal', text: 'git' },
      { kind: 'literal', text: 'commit' },
      { kind: 'literal', text: '-m' },
      { kind: 'literal', text: 'a b' },
      { kind: 'literal', text: '*' },
    ]);
    expect(parseApprovalPattern('run_bash(git log --format=*)').command?.[2]).toMatchObject({
      kind: 'glob',
      text: '--format=*',
    });
    expect(parseApprovalPattern('write_file(path=docs/**, content=*)').arguments).toEqual([
      { key: 'path', glob: 'docs/**' },
      { key: 'content', glob: '*' },
    ]);
    expect(parseApprovalPattern('write_file(path={a,b}/*.md)').arguments).toEqual([
      { key: 'path', glob: '{a,b}/*.md' },
    ]);
  });

  it('refuses malformed patterns with ApprovalRuleError and the offset of the problem', () => {
    expect(badRule('')).toMatchObject({ offset: 0 });
    expect(badRule('run bash')).toMatchObject({ offset: 0 });
    expect(badRule('run_bash(git status')).toMatchObject({ offset: 19 });
    expect(badRule('run_bash()')).toMatchObject({ offset: 9 });
    expect(badRule('run_bash(* status)')).toMatchObject({ offset: 9 });
    expect(badRule('run_bash(g* status)')).toMatchObject({ offset: 9 });
    expect(badRule("run_bash(echo 'a)")).toMatchObject({ offset: 14 });
    expect(badRule('fs:*(x)')).toMatchObject({ offset: 4 });
    expect(badRule('write_file(path=)')).toMatchObject({ offset: 16 });
    expect(badRule('write_file(path=a, path=b)')).toMatchObject({ offset: 19 });
    expect(badRule('run_bash(git\nstatus)')).toMatchObject({ offset: 12 });
    expect(badRule(' read_file')).toMatchObject({ offset: 0 });
    // Shell syntax in a command rule (exploratory report, stop 68: accepted, and the rule matched nothing).
    expect(badRule('run_bash(echo * | cat)')).toMatchObject({
      offset: 16,
      message: expect.stringContaining('`|`'),
    });
    expect(badRule('run_bash(touch P && *)')).toMatchObject({ offset: 17 });
    expect(badRule('run_bash(git status;rm x)')).toMatchObject({ offset: 19 });
    expect(badRule('run_bash(git status))')).toMatchObject({ offset: 19 });
    expect(badRule('run_bash(echo hi > out)')).toMatchObject({ offset: 17 });
    expect(badRule('run_bash(echo `id`)')).toMatchObject({ offset: 14 });
    // Quoted, the same characters are words to match.
    expect(parseApprovalPattern("run_bash(grep 'a|b' *)").command?.[1]).toEqual({
      kind: 'literal',
      text: 'a|b',
    });
    expect(new ApprovalRuleError('x', 3, 'why').message).toBe('Bad approval rule "x" at 4: why');
  });
});

const SHELL = { name: 'run_bash', skill: 'shell', raw: true };
const WRITE = { name: 'write_file', skill: 'filesystem' };
const READ = { name: 'read_file', skill: 'filesystem' };

describe('compileRules', () => {
  it('deny > ask > allow, whatever the order the rules are given in', () => {
    const set = compileRules([
      user('allow', 'write_file'),
      user('ask', 'write_file(path=src/**)'),
      user('deny', 'write_file(path=.git/**)'),
    ]);
    const effect = (path: string) => set.decide({ tool: WRITE, args: { path } })?.effect;
    expect(effect('docs/a.md')).toBe('allow');
    expect(effect('src/a.ts')).toBe('ask');
    expect(effect('.git/hooks/pre-commit')).toBe('deny');
    expect(effect('./.git/config')).toBe('deny');
    expect(effect('docs/../.git/config')).toBe('deny');
  });

  it('an argument allow never matches a path that leaves its folder, a missing or non-text argument', () => {
    const set = compileRules([user('allow', 'write_file(path=docs/**)')]);
    const effect = (args: Record<string, unknown>) => set.decide({ tool: WRITE, args })?.effect;
    expect(effect({ path: 'docs/guide/a.md' })).toBe('allow');
    expect(effect({ path: 'docs/../src/a.ts' })).toBeUndefined();
    expect(effect({ path: '../docs/a.md' })).toBeUndefined();
    expect(effect({ path: 'docs\\..\\x' })).toBeUndefined();
    expect(effect({ path: 5 })).toBeUndefined();
    expect(effect({})).toBeUndefined();
  });

  it('skill patterns name every tool of the skill, or one; a tool pattern names the tool of any skill', () => {
    const set = compileRules([user('allow', 'filesystem:*'), user('deny', 'filesystem:write_file')]);
    expect(set.decide({ tool: READ, args: {} })?.effect).toBe('allow');
    expect(set.decide({ tool: WRITE, args: {} })?.effect).toBe('deny');
    expect(set.decide({ tool: { name: 'read_file', skill: 'other' }, args: {} })).toBeUndefined();
  });

  // Defect: curl's `-w '%output{FILE}'` writes FILE, yet `run_bash(curl *)` allowed it as a mere format.
  it("an allow's `*` does not match curl's -w when its format writes a file (%output{…})", () => {
    const set = compileRules([user('allow', 'run_bash(curl *)')]);
    const effect = (command: string) => set.decide({ tool: SHELL, args: { command } })?.effect;
    expect(effect("curl -s -w '%{http_code}' https://example.com")).toBe('allow');
    expect(effect("curl -s -w '%output{~/.bashrc}%{url}' https://example.com")).toBeUndefined();
    expect(effect("curl -s --write-out='%output{>>~/.profile}x' https://example.com")).toBeUndefined();
  });

  it('a raw command is allowed by command patterns only: a bare tool or skill allow does not cover it', () => {
    const set = compileRules([user('allow', 'run_bash'), user('allow', 'shell:*')]);
    expect(set.decide({ tool: SHELL, args: { command: 'git status' } })).toBeUndefined();
    // but a bare deny or ask applies to every call
    expect(
      compileRules([user('deny', 'run_bash')]).decide({ tool: SHELL, args: { command: 'ls' } })?.effect,
    ).toBe('deny');
  });

  it('a command of several simple commands is allowed when each matches some allow rule, and says which', () => {
    const set = compileRules([user('allow', 'run_bash(git status)'), user('allow', 'run_bash(git diff *)')]);
    const decided = set.decide({ tool: SHELL, args: { command: 'git status && git diff --stat' } });
    expect(decided?.effect).toBe('allow');
    expect(decided?.rules?.map((r) => r.pattern)).toEqual(['run_bash(git status)', 'run_bash(git diff *)']);
  });

  it('a line too complex to read asks when a deny or ask rule names the tool, and says why', () => {
    const set = compileRules([user('deny', 'run_bash(rm *)')]);
    // (`rm -rf $(pwd)` itself is denied: a loose reading of an unreadable line finds `rm`, test/rule-spellings)
    expect(set.decide({ tool: SHELL, args: { command: 'ls -l $(pwd)' } })).toMatchObject({
      effect: 'ask',
      rule: { pattern: 'run_bash(rm *)' },
      unplaced: expect.stringContaining('expansion'),
    });
  });

  it('miss names the allow rules and the simple command none of them matches', () => {
    const set = compileRules([user('allow', 'run_bash(git status)')]);
    expect(set.miss({ tool: SHELL, args: { command: 'git status; touch F' } })).toMatchObject({
      command: 'touch F',
      rules: [{ pattern: 'run_bash(git status)' }],
    });
    expect(set.miss({ tool: SHELL, args: { command: 'git status `touch F`' } })?.unplaced).toMatchObject({
      offset: 11,
    });
    expect(set.miss({ tool: READ, args: {} })).toBeUndefined();
  });

  it('miss of a raw command whose allow rules are bare names says a command pattern is needed, with one to write', () => {
    const set = compileRules([user('allow', 'run_bash'), user('allow', 'shell:*')]);
    const miss = set.miss({ tool: SHELL, args: { command: 'ls -l; pwd' } });
    expect(miss).toMatchObject({ noCommandPattern: { example: 'run_bash(ls *)' } });
    expect(describeMiss(miss!)).toMatch(
      /^the allow rules `run_bash` \(user[^)]*\), `shell:\*` \(user[^)]*\) name no command: a raw command is allowed only by a command pattern such as `run_bash\(ls \*\)`$/,
    );
    // One command pattern among them: the miss names the command it does not match, as before.
    const mixed = compileRules([user('allow', 'run_bash'), user('allow', 'run_bash(git status)')]);
    expect(mixed.miss({ tool: SHELL, args: { command: 'ls' } })).toMatchObject({ command: 'ls' });
  });

  it('throws ApprovalRuleError for a malformed rule', () => {
    expect(() => compileRules([user('allow', 'run_bash(')])).toThrow(ApprovalRuleError);
  });
});

describe('suggestCommandPattern', () => {
  it('offers the program and its subcommand, then *', () => {
    expect(suggestCommandPattern('npm test')).toBe('run_bash(npm test *)');
    expect(suggestCommandPattern('npm test -- --watch')).toBe('run_bash(npm test *)');
    expect(suggestCommandPattern('git log --oneline -5')).toBe('run_bash(git log *)');
    expect(suggestCommandPattern('ls -la')).toBe('run_bash(ls *)');
    expect(suggestCommandPattern('cargo build', 'sh')).toBe('sh(cargo build *)');
  });

  it('offers nothing for a list, a line it cannot read, or a program that runs other commands', () => {
    expect(suggestCommandPattern('git status; touch F')).toBeUndefined();
    expect(suggestCommandPattern('echo $(id)')).toBeUndefined();
    expect(suggestCommandPattern('env git status')).toBeUndefined();
    expect(suggestCommandPattern('sudo npm test')).toBeUndefined();
    expect(suggestCommandPattern('bash -c x')).toBeUndefined();
  });

  it('what it offers matches the command it was made from', () => {
    for (const command of ['npm test', 'git log --oneline', 'ls -la src', 'make build']) {
      const pattern = suggestCommandPattern(command) as string;
      expect(compileRules([user('allow', pattern)]).decide({ tool: SHELL, args: { command } })?.effect).toBe(
        'allow',
      );
    }
  });
});

describe('mapAllowedTools (a skill’s allowed-tools, Claude Code syntax)', () => {
  it('maps the documented table', () => {
    expect(
      mapAllowedTools([
        'Bash(git add:*)',
        'Bash(npm test *)',
        'Bash(git status)',
        'Read',
        'Write',
        'Edit',
        'Glob',
        'Grep',
        'LS',
        'WebSearch',
        'Edit(docs/**)',
        'read_file',
        'run_bash(make *)',
      ]),
    ).toEqual({
      patterns: [
        'run_bash(git add *)',
        'run_bash(npm test *)',
        'run_bash(git status)',
        'read_file',
        'write_file',
        'append_file',
        'list_dir',
        'search_files',
        'web_search',
        'write_file(path=docs/**)',
        'append_file(path=docs/**)',
        'run_bash(make *)',
      ],
      warnings: [],
    });
  });

  it('ignores, with a warning, what would allow any command, has no equivalent, or does not parse', () => {
    const { patterns, warnings } = mapAllowedTools([
      'Bash',
      'Bash(*)',
      'Bash(:*)',
      'WebFetch',
      'mcp__github__create_issue',
      'Read(/etc/**)',
      'Bash(* foo)',
    ]);
    expect(patterns).toEqual([]);
    expect(warnings).toHaveLength(7);
    expect(warnings[0]).toMatch(/would allow any shell command/);
    expect(warnings[3]).toMatch(/no birdie equivalent/);
    expect(warnings[5]).toMatch(/relative to the working folder/);
    expect(warnings[6]).toMatch(/not a valid rule/);
  });
});

describe('inapplicableRuleReason', () => {
  it('names entries that can never apply', () => {
    expect(inapplicableRuleReason('run_bash', SHELL)).toMatch(/allows no command.*run_bash\(git status\)/);
    expect(inapplicableRuleReason('run_bash(command=git *)', SHELL)).toMatch(/never matched as text/);
    expect(inapplicableRuleReason('run_bash(env *)', SHELL)).toMatch(/`env` runs other commands/);
    expect(inapplicableRuleReason('write_file(git status)', WRITE)).toMatch(
      /does not run raw shell commands/,
    );
    expect(inapplicableRuleReason('run_bash(git status)', SHELL)).toBeUndefined();
    expect(inapplicableRuleReason('run_bash', SHELL, 'deny')).toBeUndefined();
    expect(inapplicableRuleReason('write_file', WRITE)).toBeUndefined();
  });
});

// ─── through the agent ─────────────────────────────────────────────────────────────────────────────────────────

const cleanups = useCleanups();

const files = {
  'shell/SKILL.md': toolSkill('shell', [
    {
      name: 'run_bash',
      entrypoint: 'bash:{command}',
      schema: stringArg('command'),
      description: 'Run a command',
    },
  ]),
};

async function setup(
  script: ScriptedReply[],
  agents: AgentSpec[] = [],
  init: Pick<CreateAgentOptions, 'approvalRules'> = {},
  extra: Record<string, string> = {},
) {
  const fx = await skillsFixture({ ...files, ...extra });
  const agent = createAgent({
    ...init,
    model: createScriptedModel(script),
    registry: withAgents(fx.registry, agents),
    policy: fx.policy,
    options: { cwd: fx.dir.path },
  });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  return { agent, file: (name: string) => join(fx.dir.path, name) };
}

const bash = (command: string, id: string) => ({ tool_calls: [{ name: 'run_bash', id, args: { command } }] });

describe('approval rules in a turn', () => {
  it('a scheduled agent with approve: ["run_bash(git status)"] runs `git status`; `git status; touch F` asks, naming the rule that did not match', async () => {
    const nightly = agentSpec('nightly', { approve: ['run_bash(git status)'], file: '/agents/nightly.md' });
    // `git status` outside a repository fails, but it runs: what matters is that it was not asked about
    const { agent, file } = await setup(
      [bash('git status', 'c1'), bash('git status; touch F', 'c2'), { text: 'done' }],
      [nightly],
    );
    const events = await collect(agent.stream('check the tree', { threadId: 't1', agent: 'nightly' }));
    expect(ofType(events, 'tool-rule')).toEqual([
      {
        type: 'tool-rule',
        id: 'c1',
        name: 'run_bash',
        effect: 'allow',
        pattern: 'run_bash(git status)',
        source: { kind: 'agent', name: '/agents/nightly.md' },
        agent: ['nightly'],
      },
    ]);
    expect(ofType(events, 'tool-start').map((e) => e.args.command)).toEqual(['git status']);
    const [asked] = ofType(events, 'approval-request');
    expect(asked?.requests).toHaveLength(1);
    expect(asked?.requests[0]).toMatchObject({
      id: 'c2',
      reason: 'raw-command',
      raw: true,
      ruleMiss: 'the allow rule `run_bash(git status)` (agent /agents/nightly.md) does not match `touch F`',
    });
    expect(existsSync(file('F'))).toBe(false);
    // unattended: nobody approves, the call is rejected and nothing ran
    await collect(agent.resume('t1', { c2: { type: 'reject', message: 'unattended' } }));
    expect(existsSync(file('F'))).toBe(false);
  });

  it('a deny rule refuses the call with a message naming the rule and its source; tool-rule says so', async () => {
    const { agent, file } = await setup([bash('touch F', 'c1'), { text: 'ok' }], [], {
      approvalRules: [
        {
          pattern: 'run_bash(touch *)',
          effect: 'deny',
          source: { kind: 'project', name: '/p/.birdie/settings.json' },
        },
      ],
    });
    const events = await collect(agent.stream('go', { threadId: 't1', approval: 'never' }));
    expect(ofType(events, 'tool-rule')).toEqual([
      {
        type: 'tool-rule',
        id: 'c1',
        name: 'run_bash',
        effect: 'deny',
        pattern: 'run_bash(touch *)',
        source: { kind: 'project', name: '/p/.birdie/settings.json' },
      },
    ]);
    expect(textOf((await toolMessages(agent, 't1'))[0])).toBe(
      'Refused by the deny rule `run_bash(touch *)` (project /p/.birdie/settings.json): this call may not run. Do not retry it in another form.',
    );
    expect(existsSync(file('F'))).toBe(false);
  });

  it('arguments the user edited in an approval are checked against the deny rules again: a denied edit does not run', async () => {
    const { agent, file } = await setup([bash('echo hi', 'c1'), { text: 'ok' }], [], {
      approvalRules: [user('deny', 'run_bash(touch *)')],
    });
    const asked = await collect(agent.stream('go', { threadId: 't1', approval: 'always' }));
    expect(ofType(asked, 'approval-request')[0]?.requests[0]?.id).toBe('c1');
    const events = await collect(
      agent.resume('t1', { c1: { type: 'edit', args: { command: `touch ${file('F')}` } } }),
    );
    expect(ofType(events, 'tool-start')).toEqual([]);
    expect(ofType(events, 'tool-rule')).toEqual([
      expect.objectContaining({ id: 'c1', effect: 'deny', pattern: 'run_bash(touch *)' }),
    ]);
    expect(ofType(events, 'tool-end')[0]).toMatchObject({ ok: false, outcome: 'refused' });
    expect(textOf((await toolMessages(agent, 't1'))[0])).toBe(
      "The user's edited arguments are refused by the deny rule `run_bash(touch *)` (user): the call did not run.",
    );
    expect(existsSync(file('F'))).toBe(false);
    // An edit no deny rule refuses runs as before.
    const { agent: other, file: otherFile } = await setup([bash('echo hi', 'c1'), { text: 'ok' }], [], {
      approvalRules: [user('deny', 'run_bash(rm *)')],
    });
    await collect(other.stream('go', { threadId: 't1', approval: 'always' }));
    await collect(other.resume('t1', { c1: { type: 'edit', args: { command: `touch ${otherFile('G')}` } } }));
    expect(existsSync(otherFile('G'))).toBe(true);
  });

  it('an ask rule asks even with approvals off; an allow rule does not lift mode always', async () => {
    const { agent } = await setup([bash('git status', 'c1'), bash('git status', 'c2')], [], {
      approvalRules: [user('ask', 'run_bash(git *)'), user('allow', 'run_bash(git status)')],
    });
    const first = await collect(agent.stream('go', { threadId: 't1', approval: 'never' }));
    expect(ofType(first, 'approval-request')[0]?.requests[0]).toMatchObject({
      reason: 'rule',
      rule: { pattern: 'run_bash(git *)', effect: 'ask', source: { kind: 'user' } },
      description: 'Run shell command: git status',
    });
    const { agent: other } = await setup([bash('ls', 'c1')], [], {
      approvalRules: [user('allow', 'run_bash(ls *)')],
    });
    const always = await collect(other.stream('go', { threadId: 't1', approval: 'always' }));
    expect(ofType(always, 'approval-request')[0]?.requests[0]?.reason).toBe('mode-always');
  });

  it('an approve decision with a pattern adds a session rule: later calls it covers run without asking, others ask', async () => {
    const { agent } = await setup([
      bash('echo test --silent', 'c1'),
      bash('echo test -- --watch=false', 'c2'),
      bash('echo install', 'c3'),
    ]);
    await collect(agent.stream('go', { threadId: 't1' }));
    const resumed = await collect(
      agent.resume('t1', { c1: { type: 'approve', scope: 'session', pattern: 'run_bash(echo test *)' } }),
    );
    expect(ofType(resumed, 'tool-rule').map((e) => [e.id, e.effect, e.pattern, e.source])).toEqual([
      ['c2', 'allow', 'run_bash(echo test *)', { kind: 'session' }],
    ]);
    expect(ofType(resumed, 'tool-approved')).toEqual([]);
    expect(ofType(resumed, 'approval-request')[0]?.requests.map((r) => r.id)).toEqual(['c3']);
    const state = await agent.getState('t1');
    expect(state.sessionApprovals).toEqual([
      expect.objectContaining({ tool: 'run_bash', pattern: 'run_bash(echo test *)' }),
    ]);
  });

  it("approving an ask rule's question for the session approves that call once: no grant of the tool is kept", async () => {
    // No front end offers "for this session" at an ask rule's question; an API client answering it anyway must not
    // get a whole-tool grant that lets every later command run unasked.
    const { agent, file } = await setup(
      [bash('git status', 'c1'), bash('touch F', 'c2'), { text: 'ok' }],
      [],
      {
        approvalRules: [user('ask', 'run_bash(git *)')],
      },
    );
    const first = await collect(agent.stream('go', { threadId: 't1' }));
    expect(ofType(first, 'approval-request')[0]?.requests[0]).toMatchObject({ id: 'c1', reason: 'rule' });
    const resumed = await collect(agent.resume('t1', { c1: { type: 'approve', scope: 'session' } }));
    expect(ofType(resumed, 'tool-start').map((e) => e.args.command)).toEqual(['git status']);
    expect(ofType(resumed, 'approval-request')[0]?.requests.map((r) => [r.id, r.reason])).toEqual([
      ['c2', 'raw-command'],
    ]);
    expect(existsSync(file('F'))).toBe(false);
    expect((await agent.getState('t1')).sessionApprovals ?? []).toEqual([]);
  });

  it('refuses a session pattern that does not cover the call or names another tool', async () => {
    const { agent } = await setup([bash('echo test', 'c1')]);
    await collect(agent.stream('go', { threadId: 't1' }));
    await expect(
      collect(agent.resume('t1', { c1: { type: 'approve', scope: 'session', pattern: 'run_bash(make *)' } })),
    ).rejects.toThrow(/does not cover this call/);
    await expect(
      collect(agent.resume('t1', { c1: { type: 'approve', pattern: 'run_bash(npm test *)' } })),
    ).rejects.toThrow(/needs scope session/);
    await expect(
      collect(agent.resume('t1', { c1: { type: 'approve', scope: 'session', pattern: 'run_bash(' } })),
    ).rejects.toThrow(/Bad approval rule/);
  });

  it("a loaded skill's allowed-tools allow what they name, never against a deny; a skill not loaded allows nothing", async () => {
    const { agent } = await setup(
      [
        {
          tool_calls: [
            { name: 'run_bash', id: 'c1', args: { command: 'echo allowed here' } },
            { name: 'run_bash', id: 'c2', args: { command: 'echo allowed secret' } },
            { name: 'run_bash', id: 'c3', args: { command: 'echo later' } },
          ],
        },
      ],
      [],
      { approvalRules: [user('deny', 'run_bash(echo allowed secret)')] },
      {
        'guide/SKILL.md': knowledgeSkill(
          'guide',
          'How to work here.',
          'always_inject: true\nallowed-tools: Bash(echo allowed:*) Bash\n',
        ),
        'later/SKILL.md': knowledgeSkill('later', 'Loaded on demand.', 'allowed-tools: Bash(echo later)\n'),
      },
    );
    const events = await collect(agent.stream('go', { threadId: 't1' }));
    // only the call no rule allows asks; the batch waits for it (events of rules come when the calls are answered)
    expect(ofType(events, 'approval-request')[0]?.requests.map((r) => r.id)).toEqual(['c3']);
    const resumed = await collect(agent.resume('t1', { c3: { type: 'reject' } }));
    expect(ofType(resumed, 'tool-rule').map((e) => [e.id, e.effect, e.pattern, e.source])).toEqual([
      ['c1', 'allow', 'run_bash(echo allowed *)', { kind: 'skill', name: 'guide' }],
      ['c2', 'deny', 'run_bash(echo allowed secret)', { kind: 'user' }],
    ]);
    expect(ofType(resumed, 'tool-start').map((e) => e.id)).toEqual(['c1']);
  });

  it('createAgent refuses malformed application rules', () => {
    expect(() =>
      createAgent({
        model: createScriptedModel([]),
        registry: { current: () => ({}) as never },
        policy: {} as never,
        approvalRules: [user('allow', 'run_bash(*)')],
      }),
    ).toThrow(ApprovalRuleError);
  });
});
