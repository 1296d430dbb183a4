import type { Agent, ApprovalMode } from '@birdie/graph';
import type { ResolvedProviderConfig } from '@birdie/providers';
import type { LoadedRegistry, SkillPolicy } from '@birdie/registry';
import type { Session, Store } from '@birdie/store';
import type { Values } from './argv.js';
import { type LoadedConfig, loadConfig } from './config.js';
import { WRITABLE_HINT } from './folders.js';
import { CliError, EXIT_RUN, type Io, UsageError } from './io.js';
import { birdieHome } from './paths.js';
import { APPROVAL_MODES } from './settings.js';
import { openRegistry, workingDir } from './skills.js';
import { didYouMean } from './suggest.js';

export { APPROVAL_MODES };

/** `--approval`, else `fallback` (the `approval` setting once the config is loaded). */
export function approvalMode(values: Values, fallback: ApprovalMode = 'ask'): ApprovalMode {
  const raw = values.approval;
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && (APPROVAL_MODES as readonly string[]).includes(raw))
    return raw as ApprovalMode;
  throw new UsageError(`--approval must be ask, always or never, got "${String(raw)}"`);
}

export function userIdOf(io: Io, values: Values): string {
  return typeof values.user === 'string' ? values.user : io.env.USER || io.env.LOGNAME || 'default';
}

/** The store, opened with errors a user can act on (bad ids, unreadable folder) as usage errors. */
export async function openUserStore(io: Io): Promise<Store> {
  const { openStore, StoreError } = await import('@birdie/store');
  const home = birdieHome(io.env);
  try {
    return openStore({ home });
  } catch (error) {
    // BIRDIE_HOME names a place no folder can be made (a file in the path, /proc/…): configuration, exit 2.
    if (error instanceof StoreError && error.code === 'home-unusable')
      throw new UsageError(`${error.message}. ${WRITABLE_HINT}`, { cause: error });
    // A damaged, foreign or unreadable database is the user's to fix, not a bug: say where and why, no stack.
    const cause = (error as { cause?: unknown }).cause;
    const reason = [error, cause]
      .filter((e): e is Error => e instanceof Error)
      .map((e) => e.message)
      .join(': ');
    throw new CliError(
      `cannot open the birdie database in ${home}: ${reason || String(error)}. Move the folder aside or set BIRDIE_HOME to start afresh.`,
      EXIT_RUN,
      { cause: error },
    );
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

/** Looks a session up by id, explaining a malformed or unknown id with the closest of the user's sessions. */
export async function findSession(store: Store, id: string, userId?: string): Promise<Session> {
  const { validateSessionId, StoreError } = await import('@birdie/store');
  try {
    validateSessionId(id);
  } catch (error) {
    if (error instanceof StoreError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const session = store.sessions.get(id);
  if (!session) {
    const ids = userId ? store.sessions.list(userId).map((s) => s.id) : [];
    throw new UsageError(`no session "${id}".${didYouMean(id, ids)} Run \`birdie sessions list\`.`);
  }
  return session;
}

/** Everything a turn needs, wired once per process. Heavy modules load here, never at startup. */
export interface Runtime {
  io: Io;
  values: Values;
  userId: string;
  cwd: string;
  store: Store;
  registry: LoadedRegistry;
  policy: SkillPolicy;
  provider: ResolvedProviderConfig;
  /** The whole config: provider, settings and where each value came from. */
  config: LoadedConfig;
  agent: Agent;
  close(): Promise<void>;
}

export async function openRuntime(io: Io, values: Values): Promise<Runtime> {
  const config = await loadConfig(io, values);
  const { provider } = config;
  const userId = await checkUserId(userIdOf(io, values));
  const cwd = workingDir(io, values);
  const [registry, store, { SkillPolicy }, { createChatModel }, { createAgent }] = await Promise.all([
    openRegistry(io, values),
    openUserStore(io),
    import('@birdie/registry'),
    import('@birdie/providers'),
    import('@birdie/graph'),
  ]);
  try {
    const model = await createChatModel(provider.config);
    const policy = new SkillPolicy(registry);
    const agent = createAgent({
      model,
      registry,
      policy,
      checkpointer: store.checkpointer,
      options: { cwd },
    });
    return {
      io,
      values,
      userId,
      cwd,
      store,
      registry,
      policy,
      provider,
      config,
      agent,
      async close() {
        await agent.close();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    const { ProviderError } = await import('@birdie/providers');
    if (error instanceof ProviderError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** Opens the given session (its grants become the policy's) or creates a new one. */
export async function useSession(rt: Runtime, id: string | undefined): Promise<Session> {
  const session = id ? await findSession(rt.store, id, rt.userId) : rt.store.sessions.create(rt.userId);
  if (session.userId !== rt.userId && id) {
    throw new UsageError(
      `session "${id}" belongs to another user (${session.userId}); pass --user ${session.userId}`,
    );
  }
  rt.policy.setGrants(session.id, rt.store.grants.get(session.id));
  return session;
}
