import type { Agent, ApprovalMode, ApprovalRule } from '@birdie/graph';
import type { ResolvedProviderConfig } from '@birdie/providers';
import type { LoadedRegistry, PolicyCeiling, SkillPolicy } from '@birdie/registry';
import type { LeaseHolder, Session, Store } from '@birdie/store';
import { modelResolver, type NamedModel, routerTiers } from './agent-models.js';
import { type LoadedConfig, loadConfig } from './config.js';
import { didYouMean, didYouMeanSession } from './did-you-mean.js';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { grantsBridge } from './grants-bridge.js';
import { type RuntimeIo, warn } from './io.js';
import { applyIsolation } from './isolation.js';
import { integrationsDir } from './paths.js';
import { retryCallback } from './retry-notice.js';
import { APPROVAL_MODES } from './settings.js';
import { openRegistry, workingDir } from './skills.js';
import { type HintPlace, isStoreErrorLike, storeFailure } from './store-failure.js';
import { folderTrusted, readTrust, type TrustRecords, trustDecision, trustedForOneRun } from './trust.js';
import { openUserStore } from './user-store.js';
import { decimalNumber } from './decimal.js';

export { APPROVAL_MODES, openUserStore };

/** `--approval`, else `fallback` (the `approval` setting once the config is loaded). */
export function approvalMode(values: Flags, fallback: ApprovalMode = 'ask'): ApprovalMode {
  const raw = values.approval;
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && (APPROVAL_MODES as readonly string[]).includes(raw))
    return raw as ApprovalMode;
  throw new UsageError(`--approval must be ask, always or never, got "${String(raw)}"`);
}

/** The longest `--wait`: a day, the store's bound on waiting for a session's lease. */
const MAX_WAIT_SECONDS = 86_400;

/** `--wait SECONDS` as milliseconds: how long a turn waits for a session another process is using. */
export function waitMs(values: Flags, defaultSeconds: number): number {
  if (values.wait === undefined) return defaultSeconds * 1000;
  const seconds = typeof values.wait === 'string' ? decimalNumber(values.wait) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new UsageError(`--wait must be a number of seconds (0 or more), got "${String(values.wait)}"`);
  // The store's own bound on a lease wait, said as the flag's: checked before a session is made.
  if (seconds > MAX_WAIT_SECONDS)
    throw new UsageError(
      `--wait must be at most ${MAX_WAIT_SECONDS} seconds (a day), got "${String(values.wait)}"`,
    );
  return seconds * 1000;
}

/** What a waiting turn says once: who holds the session, and how long it will wait. */
export function waitingLine(sessionId: string, holder: LeaseHolder, ms: number): string {
  return `birdie: session ${sessionId} is in use by process ${holder.pid} on ${holder.host} since ${holder.since.toISOString()}; waiting up to ${ms / 1000} s (Ctrl+C stops)`;
}

export function userIdOf(io: RuntimeIo, values: Flags): string {
  return typeof values.user === 'string' ? values.user : io.env.USER || io.env.LOGNAME || 'default';
}

/**
 * Commands that write (a turn, a new session) stop before they start when the store can only be read, with the very
 * error a write would meet (`read-only`, or `disk-full` on a store that opened on a full disk), in its one wording.
 */
export function requireWritable(store: Store): void {
  try {
    store.assertWritable();
  } catch (error) {
    throw isStoreErrorLike(error) ? storeFailure(error) : error;
  }
}

/** Validates a user id before it reaches any query. */
export async function checkUserId(userId: string): Promise<string> {
  const { validateUserId, StoreError } = await import('@birdie/store');
  try {
    return validateUserId(userId);
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(`${error.message} (set --user)`, { cause: error });
    throw error;
  }
}

/**
 * Looks a session of `userId` up by id, explaining a malformed or unknown id with the closest of the user's sessions,
 * and another user's session with the flag that reaches it.
 */
export async function findSession(
  store: Store,
  id: string,
  userId: string,
  /** Where the user typed the id: the hints name that place's commands. */
  from: HintPlace = 'shell',
): Promise<Session> {
  const { validateSessionId, StoreError } = await import('@birdie/store');
  let session: Session | undefined;
  try {
    validateSessionId(id);
    session = await store.sessions.get(id, userId);
  } catch (error) {
    if (error instanceof StoreError && error.code === 'not-owner')
      throw new UsageError(
        `session "${id}" belongs to user ${error.owner}; ${from === 'repl' ? `start birdie with --user ${error.owner} to open it` : `pass --user ${error.owner}`}`,
        { cause: error },
      );
    if (error instanceof StoreError && error.code === 'invalid-id')
      throw new UsageError(error.message, { cause: error });
    throw error;
  }
  if (!session) {
    const ids = (await store.sessions.list(userId)).map((s) => s.id);
    const list = from === 'repl' ? '/session list' : 'birdie sessions list';
    throw new UsageError(`no session "${id}".${didYouMeanSession(id, ids)} Run \`${list}\`.`);
  }
  return session;
}

/** Everything a turn needs, wired once per process. Heavy modules load here, never at startup. */
export interface Runtime<I extends RuntimeIo = RuntimeIo> {
  /** The approval rules the agent was made with (user's or operator's, then the project's), for `/permissions`. */
  approvalRules: readonly ApprovalRule[];
  /** The approval mode turns run under unless they say otherwise: the `approval` flag, else the setting, else `ask`. */
  approval: ApprovalMode;
  /** How long a turn waits for a session in use elsewhere, ms, unless it says otherwise: the `wait` flag (default 0). */
  waitMs: number;
  /**
   * The `agent` flag, checked against the loaded agents: who answers a session's first turn unless the turn names an
   * agent (or the session was made with one); the thread goes on with it after that, as with any agent.
   */
  agentName?: string;
  /**
   * What runs a task the model schedules and how it is stopped, as `schedule_task`'s answer says it; undefined: the
   * CLI's words. `birdie serve` sets its own (the server runs it, the API cancels it).
   */
  scheduledTaskNote?(id: string): string;
  io: I;
  values: Flags;
  userId: string;
  cwd: string;
  store: Store;
  registry: LoadedRegistry;
  policy: SkillPolicy;
  provider: ResolvedProviderConfig;
  /** The whole config: provider, settings and where each value came from. */
  config: LoadedConfig;
  /** The default model's name (`vendor:model`): the `model` setting's when it applies, else the provider's. */
  modelName: string;
  agent: Agent;
  /** The user's trust answers the registry decides by; kept in step with the store when the REPL records one. */
  trust: TrustRecords;
  /** Whether a folder (default: the working one) is trusted — a stored answer, or `--trust-workspace` for the working
   * folder — so that its AGENTS.md files are read. */
  workspaceTrusted(folder?: string): boolean;
  /** Resolves a model name (a tier or `vendor:model`), as `/model` and agent files name models; usage errors. */
  resolveModel(spec: string): Promise<NamedModel>;
  /** The model that writes titles (`titles: model`): the `fast` tier when the config has one, else the provider's. */
  titleModel(): Promise<NamedModel>;
  /**
   * Reads the session's grants from the store into the policy (as `userId`, default the runtime's user); call before
   * the policy is asked about the session. Every turn calls it again: another process may have changed them.
   */
  loadGrants(sessionId: string, userId?: string): Promise<void>;
  /**
   * Drops the session's grants from memory (the policy's and the store bridge's), not from the store: `birdie serve`
   * calls it when a session's turn or request ends, so a long-running server keeps only the sessions it is using.
   * The next `loadGrants` reads them again.
   */
  forgetGrants(sessionId: string): void;
  /**
   * Waits for the policy's grant changes to be written; rejects with why the session's (without one: any session's)
   * were not saved, the change rolled back by then (the policy has the grants the store holds).
   */
  saveGrants(sessionId?: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenRuntimeOptions {
  /** The most any session may use (`birdie serve`: the operator's policy), from the loaded config. */
  ceiling?(config: LoadedConfig): PolicyCeiling;
  /**
   * The approval rules every session of this runtime gets, instead of the user's and the project's (`birdie serve`:
   * the operator's rules; nothing a request sends adds to them).
   */
  rules?(config: LoadedConfig): ApprovalRule[];
}

export async function openRuntime<I extends RuntimeIo>(
  io: I,
  values: Flags = {},
  options: OpenRuntimeOptions = {},
): Promise<Runtime<I>> {
  // The documented flags a turn runs under: a bad value fails before anything loads.
  approvalMode(values);
  const wait = waitMs(values, 0);
  const config = await loadConfig(io, values);
  await applyIsolation(io, values, config.settings);
  const { provider } = config;
  const userId = await checkUserId(userIdOf(io, values));
  const cwd = workingDir(io, values);
  const modules = Promise.all([
    import('@birdie/registry'),
    import('@birdie/providers'),
    import('@birdie/graph'),
  ]);
  // The store first: it holds the user's trust answers, which decide whether project skills load at all.
  const store = await openUserStore(io, values);
  try {
    const trust = await readTrust(store);
    const registry = await openRegistry(
      io,
      values,
      trustDecision(trust, trustedForOneRun(values, cwd)),
      config.settings,
    );
    // A typo in the agent's name fails here, not as a turn answered by the default agent.
    const agentName = agentFlag({ registry }, values);
    const [{ SkillPolicy }, { createChatModel, closeChatModel, probeContextWindow }, { createAgent }] =
      await modules;
    const { settings } = config;
    const resolveModel = modelResolver(io, config);
    const { model, name: modelName } = settingModelApplies(config)
      ? await resolveModel(settings.model!)
      : await providerModel(io, provider, cwd, createChatModel, probeContextWindow);
    let titleModel: Promise<NamedModel> | undefined;
    // The policy reads each session's grants from the store and saves every change there itself; a change the store
    // refused is forgotten, so the policy reads the saved grants again.
    const grants = grantsBridge(store, userId, (sessionId) => policy.forget(sessionId));
    const policy = new SkillPolicy(registry, {
      store: grants.policyStore,
      ...(options.ceiling ? { ceiling: options.ceiling(config) } : {}),
    });
    // Approval rules fixed for the agent: the user's settings, then the project's (its allow rules once trusted).
    const trustedNow = folderTrusted(values, cwd, trust, registry.current());
    const { userRules, projectRules } = await import('./permission-rules.js');
    const project = options.rules ? { rules: [] } : await projectRules(cwd, trustedNow);
    if ('problem' in project && project.problem)
      warn(
        io,
        `birdie: some of the project's approval rules are not used (the others apply): ${project.problem}`,
      );
    const approvalRules = [...(options.rules?.(config) ?? userRules(settings)), ...project.rules];
    const agent = createAgent({
      model,
      modelName,
      approvalRules,
      // Tiers and `vendor:model` (agent files, /model, switch_model), resolved against the user's own config.
      modelFor: resolveModel,
      tiers: routerTiers(config),
      registry,
      policy,
      checkpointer: store.checkpointer,
      options: {
        cwd,
        ...(settings.context_window !== undefined ? { contextWindow: settings.context_window } : {}),
        ...(settings.context_messages !== undefined ? { contextMessages: settings.context_messages } : {}),
        // `tool_budget: 0` binds every tool; otherwise either setting replaces its default (40 tools, 12000 chars).
        ...(settings.tool_budget === 0
          ? { toolBudget: false as const }
          : settings.tool_budget !== undefined || settings.tool_budget_chars !== undefined
            ? { toolBudget: { maxTools: settings.tool_budget, maxChars: settings.tool_budget_chars } }
            : {}),
      },
    });
    return {
      approvalRules,
      approval: approvalMode(values, settings.approval),
      waitMs: wait,
      ...(agentName !== undefined ? { agentName } : {}),
      io,
      values,
      userId,
      cwd,
      store,
      registry,
      policy,
      provider,
      config,
      modelName,
      agent,
      trust,
      // Trusted for what it holds now: the registry lists a folder whose digest changed (a new AGENTS.md, say) as
      // untrusted until the user answers again.
      workspaceTrusted: (folder = cwd) => folderTrusted(values, cwd, trust, registry.current(), folder),
      resolveModel,
      titleModel() {
        titleModel ??= provider.tiers.includes('fast')
          ? resolveModel('fast').catch(() => ({ model, name: modelName }))
          : Promise.resolve({ model, name: modelName });
        return titleModel;
      },
      async loadGrants(sessionId: string, owner: string = userId) {
        policy.setGrants(sessionId, await grants.load(sessionId, owner));
      },
      forgetGrants(sessionId: string) {
        policy.forget(sessionId);
        grants.forget(sessionId);
      },
      saveGrants: (sessionId?: string) => grants.flush(sessionId),
      async close() {
        await agent.close();
        // A model that runs a program (the acp vendor's agent) ends it here.
        await closeChatModel(model);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    const { ProviderError } = await import('@birdie/providers');
    if (error instanceof ProviderError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/**
 * Whether the `model` setting picks the default model: it is a user default, so a model given for this run
 * (`LLM_MODEL`, `LLM_PROVIDER_CONFIG`) wins over it, and so does a vendor given for this run (`LLM_VENDOR`, the
 * vendor of `LLM_PROVIDER_CONFIG`) when the setting names another vendor (`openai:gpt-4o` against a scripted run).
 */
export function settingModelApplies(config: LoadedConfig): boolean {
  const setting = config.settings.model;
  if (setting === undefined) return false;
  const forThisRun = (source: string | undefined) =>
    source !== undefined && (source.startsWith('env') || source.startsWith('inline'));
  const { sources, config: provider } = config.provider;
  if (forThisRun(sources.model)) return false;
  const colon = setting.indexOf(':');
  const vendor = colon === -1 ? undefined : setting.slice(0, colon);
  return !(vendor !== undefined && vendor !== provider.vendor && forThisRun(sources.vendor));
}

/** The provider section's own model, as every run used before the `model` setting. */
async function providerModel(
  io: RuntimeIo,
  provider: ResolvedProviderConfig,
  cwd: string,
  createChatModel: typeof import('@birdie/providers').createChatModel,
  probeContextWindow: typeof import('@birdie/providers').probeContextWindow,
): Promise<NamedModel> {
  const model = await createChatModel(provider.config, {
    integrationsDir: integrationsDir(io.env),
    cwd,
    onRetry: retryCallback(provider.config),
  });
  // Ollama's context length is the server's (num_ctx); asked once, it becomes the model profile's input limit.
  await probeContextWindow(model, provider.config);
  return { model, name: modelLabel(provider) };
}

/** The provider's model as birdie names models everywhere: `vendor:model`. */
export function modelLabel(provider: ResolvedProviderConfig): string {
  return `${provider.config.vendor}:${provider.config.model}`;
}

/**
 * `--agent NAME` checked against the loaded agents (undefined without the flag): an unknown name is a usage error
 * with the closest agent's name.
 */
export function agentFlag(rt: Pick<Runtime, 'registry'>, values: Flags): string | undefined {
  if (typeof values.agent !== 'string') return undefined;
  const snapshot = rt.registry.current();
  const found = snapshot.getAgent(values.agent);
  if (found) return found.name;
  const names = snapshot.agents.map((a) => a.name);
  throw new UsageError(
    `--agent: no agent "${values.agent}".${didYouMean(values.agent, names)} Run \`birdie agents list\` to see them.`,
  );
}

/** Grants of the session that another skill file now shadows: they do not carry over, and the user is told once. */
export function staleGrantNotes(rt: Runtime, sessionId: string): string[] {
  return rt.policy
    .staleGrants(sessionId)
    .map(
      (g) =>
        `skill ${g.name}: this session enabled the one in ${g.grantedTo.replace(/^\w+:/, '')}; ${g.providedBy.replace(/^\w+:/, '')} provides it now, so the grant does not carry over (enable it again to use the new one)`,
    );
}
