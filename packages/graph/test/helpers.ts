import { existsSync, readFileSync } from 'node:fs';
import { loadRegistry, type Registry, SkillPolicy } from '@birdie/registry';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { afterEach } from 'vitest';
import {
  type Agent,
  type AgentEvent,
  type AgentOptions,
  type AgentRegistry,
  type AgentRegistrySnapshot,
  type AgentSpec,
  type CreateAgentOptions,
  createAgent,
} from '../src/index.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

export interface SkillsFixture {
  dir: TempDir;
  registry: Registry;
  policy: SkillPolicy;
}

/** Writes `{ 'name/SKILL.md': text }` into a fresh folder and loads it as the only (explicit) layer. */
export async function skillsFixture(
  files: Record<string, string>,
  defaults: string[] = [],
): Promise<SkillsFixture> {
  const dir = await makeTempDir('birdie-graph-');
  await writeTree(dir.path, files);
  const registry = await loadRegistry({ dirs: [dir.path], defaults });
  return { dir, registry, policy: new SkillPolicy(registry) };
}

export type Cleanups = Array<() => Promise<void> | void>;

/** A list the calling test file pushes cleanups onto; after each test they run, newest first. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });
  return cleanups;
}

/**
 * `setup(files, options?, init?)`: a skills fixture and an agent over it on a fresh `fakeModel()`, working in the
 * fixture folder unless `options` say otherwise; after each test the agent is closed and the folder removed.
 */
export function agentSetup(cleanups: Cleanups) {
  return async (
    files: Record<string, string>,
    options: AgentOptions = {},
    init: Pick<CreateAgentOptions, 'checkpointer' | 'mcp'> = {},
  ) => {
    const fx = await skillsFixture(files);
    const model = fakeModel();
    const agent = createAgent({
      ...init,
      model,
      registry: fx.registry,
      policy: fx.policy,
      options: { cwd: fx.dir.path, ...options },
    });
    cleanups.push(async () => {
      await agent.close();
      await fx.dir.cleanup();
    });
    return { fx, model, agent };
  };
}

/**
 * An agent over the skills fixture `fx` and a model of the test's own (scripted, streaming, asking or hanging), with
 * `agents` added to its registry (and `init`'s MCP options); after the test the agent is closed and the fixture's folder removed.
 */
export function agentOn(
  cleanups: Cleanups,
  fx: SkillsFixture,
  model: BaseChatModel,
  agents: AgentSpec[] = [],
  init: Pick<CreateAgentOptions, 'mcp' | 'approvalRules'> = {},
) {
  const agent = createAgent({
    ...init,
    model,
    registry: agents.length > 0 ? withAgents(fx.registry, agents) : fx.registry,
    policy: fx.policy,
    options: { cwd: fx.dir.path },
  });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  return agent;
}

/** An agent with no skills over a model of the test's own, closed after it. */
export async function agentOverModel(cleanups: Cleanups, model: BaseChatModel) {
  const fx = await skillsFixture({});
  return { agent: agentOn(cleanups, fx, model), cwd: fx.dir.path };
}

/** The thread's tool results, oldest first. */
export const toolMessages = async (agent: Agent, thread: string) =>
  (await agent.getState(thread)).messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

export function ofType<T extends AgentEvent['type']>(
  events: AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** A tool skill in the birdie format: one `### tool` block per entry. */
export function toolSkill(
  name: string,
  tools: Array<{ name: string; entrypoint: string; schema?: string; extra?: string; description?: string }>,
  frontmatter = '',
): string {
  const blocks = tools.map(
    (t) =>
      `### ${t.name}\ndescription: ${t.description ?? `The ${t.name} tool`}\nentrypoint: ${t.entrypoint}\n${t.extra ?? ''}${
        t.schema ?? 'schema:\n  type: object\n  properties: {}\n'
      }`,
  );
  return `---\nname: ${name}\ndescription: The ${name} skill\nenabled_by_default: true\n${frontmatter}---\n\n## Tools\n\n${blocks.join('\n')}`;
}

export function knowledgeSkill(name: string, body: string, frontmatter = ''): string {
  return `---\nname: ${name}\ndescription: Knowledge about ${name}\nenabled_by_default: true\n${frontmatter}---\n\n${body}\n`;
}

/** An AIMessage asking for the given tool calls (ids default to `c1`, `c2`, …). */
export function callTools(
  calls: Array<{ name: string; args?: Record<string, unknown>; id?: string }>,
  text = '',
) {
  return new AIMessage({
    content: text,
    tool_calls: calls.map((c, i) => ({
      id: c.id ?? `c${i + 1}`,
      name: c.name,
      args: c.args ?? {},
      type: 'tool_call' as const,
    })),
  });
}

export const stringArg = (...names: string[]) =>
  `schema:\n  type: object\n  properties:\n${names.map((n) => `    ${n}:\n      type: string\n`).join('')}  required: [${names.join(', ')}]\n`;

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A `waitFor` probe: the pid a process wrote to `file`, once it is there. */
export const readPid = (file: string) => () =>
  existsSync(file) ? Number(readFileSync(file, 'utf8')) || undefined : undefined;

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An agent definition as the registry would give it (the parser's output shape). */
export function agentSpec(name: string, fields: Partial<AgentSpec> = {}): AgentSpec {
  return {
    name,
    description: `The ${name} agent`,
    body: `You are ${name}.`,
    file: `/agents/${name}.md`,
    digest: `digest-${name}`,
    ...fields,
  };
}

/**
 * The registry with agents added to its snapshots (`getAgent`), as the registry's agent layer will give them. One
 * wrapper per snapshot, so the snapshot stays the same object for the whole turn as the real one does.
 */
export function withAgents(registry: Registry, agents: AgentSpec[]): AgentRegistry {
  const wrapped = new WeakMap<object, AgentRegistrySnapshot>();
  return {
    current() {
      const base = registry.current();
      let snapshot = wrapped.get(base);
      if (!snapshot) {
        snapshot = Object.assign(Object.create(base) as AgentRegistrySnapshot, {
          // Looked up live, so a test can take an agent away as an agent-file reload would.
          getAgent: (n: string) => agents.find((a) => a.name === n),
        });
        wrapped.set(base, snapshot);
      }
      return snapshot;
    },
  };
}

/** Text of a message's content, whatever its shape. */
export function textOf(message: { content: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === 'string') return content;
  return JSON.stringify(content ?? '');
}
