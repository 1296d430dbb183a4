import type { ApprovalMode } from '@birdie/graph';
import type { RuleSet } from '@birdie/graph/tools';
import type { LoadedRegistry, SkillPolicy } from '@birdie/registry';
import type { TurnLimits, Workspaces } from '@birdie/server';
import type { Session, Store } from '@birdie/store';
import type { DiagnosticLike } from './diagnostics.js';
import type { Flags } from './flags.js';
import { grantsBridge } from './grants-bridge.js';
import { type RuntimeIo, warn } from './io.js';
import { applyIsolation, loadSettingsWithSources } from './isolation.js';
import { type McpPassThrough, mcpPassThrough } from './mcp-passthrough.js';
import { operatorPolicy } from './operator-policy.js';
import { approvalMode, checkUserId, requireWritable, userIdOf } from './runtime.js';
import type { ServeIsolation } from './serve-isolation.js';
import { type McpSessionLimits, mcpSessionLimits, turnLimits } from './serve-limits.js';
import type { SettingKey, Settings } from './settings.js';
import { settingSkills, skillFlags, skillsOver } from './skill-flags.js';
import { openRegistry, workingDir } from './skills.js';
import { folderTrusted, readTrust, trustDecision, trustedForOneRun } from './trust.js';
import { openUserStore } from './user-store.js';

/**
 * What `birdie mcp` serves from, opened once per process: the settings, the store, the registry with the user's trust
 * answers, the skill policy (grants saved to the store), the approval rules and mode. It loads no model and no
 * LangGraph: a tool call needs only the registry and the entrypoints (as `birdie tool`).
 */
export interface McpHost {
  io: RuntimeIo;
  settings: Settings;
  store: Store;
  registry: LoadedRegistry;
  policy: SkillPolicy;
  rules: RuleSet;
  approval: ApprovalMode;
  /** Raw commands ask whatever the mode says (`--http`: the one who approves is a token holder, not the operator). */
  askRawCommands: boolean;
  /** The user of a local (stdio) server. */
  userId: string;
  /** The tools' working folder of a local server. */
  cwd: string;
  /**
   * `--http`: where each user's tools run (a workspace per user), how they are confined, the per-user turn limits
   * tool calls count against (`serve.limits`, as `birdie serve`'s turns) and how many MCP sessions are kept.
   */
  serve?: {
    workspaces: Workspaces;
    isolation: ServeIsolation;
    limits: TurnLimits;
    sessions: McpSessionLimits;
  };
  /** The tools of the MCP servers the session's skills declare, passed on (one connection per server, shared). */
  mcpTools: McpPassThrough;
  /**
   * Hears that what a session may list may have changed: the skill folders were reloaded (the registry is watched
   * while the host is open) or an MCP server said its tools changed. Returns how to stop hearing.
   */
  onChange(listener: () => void): () => void;
  /** Makes the session an MCP connection's calls are logged in, with the settings' and flags' skills granted. */
  newSession(userId: string, title: string): Promise<Session>;
  /** Reads the session's grants into the policy (another process may have changed them). */
  loadGrants(session: Session): Promise<void>;
  /**
   * Drops what was read of the session's grants (the store keeps them): a connection calls it when it ends, so a
   * host serving many MCP sessions holds the grants of the open ones only.
   */
  forgetGrants(sessionId: string): void;
  close(): Promise<void>;
}

export interface McpHostOptions {
  /** Serve as `birdie serve` does: the operator's policy and rules, a workspace per user, the sandbox forced. */
  http?: boolean;
  /**
   * Hears every reload of the watched skill folders with its diagnostics, so the application can report the problems
   * of a file an edit broke (the host does not print them: their format is the application's; over stdio never on
   * stdout). Without it they are only seen as the skill's tools leaving the lists.
   */
  onReload?: (messages: readonly DiagnosticLike[]) => void;
}

/**
 * Opens the host: locally (stdio) with the user's policy, grants, trust, rules and isolation as the REPL has them; with
 * `http`, as `birdie serve` (`serveIsolation`: workspaces, the sandbox forced; `operatorPolicy`: the operator's
 * skills, agents and rules as the ceiling of every session). Warnings go to `io.stderr` (never stdout: over stdio it
 * carries the protocol).
 */
export async function openMcpHost(
  io: RuntimeIo,
  flags: Flags,
  options: McpHostOptions = {},
): Promise<McpHost> {
  approvalMode(flags); // a bad --approval fails before anything loads
  const { settings, sources } = await loadSettingsWithSources(io, flags);
  await applyIsolation(io, flags, settings);
  const userId = await checkUserId(userIdOf(io, flags));
  const cwd = workingDir(io, flags);
  const store = await openUserStore(io, flags);
  try {
    requireWritable(store);
    const trust = await readTrust(store);
    const registry = await openRegistry(
      io,
      flags,
      trustDecision(trust, trustedForOneRun(flags, cwd)),
      settings,
    );
    const [{ SkillPolicy }, { compileRules }] = await Promise.all([
      import('@birdie/registry'),
      import('@birdie/graph/tools'),
    ]);
    const operator = options.http ? operatorPolicy(settings) : undefined;
    // A change the store refused is forgotten, so the policy reads the saved grants again.
    const grants = grantsBridge(store, userId, (sessionId) => policy.forget(sessionId));
    const policy = new SkillPolicy(registry, {
      store: grants.policyStore,
      ...(operator ? { ceiling: operator.ceiling } : {}),
    });
    let rules = operator?.rules;
    if (!rules) {
      const { userRules, projectRules } = await import('./permission-rules.js');
      const project = await projectRules(cwd, folderTrusted(flags, cwd, trust, registry.current()));
      if ('problem' in project && project.problem)
        warn(
          io,
          `birdie: some of the project's approval rules are not used (the others apply): ${project.problem}`,
        );
      rules = [...userRules(settings), ...project.rules];
    }
    let serve: McpHost['serve'];
    if (operator) {
      const [{ serveIsolation }, { Workspaces }] = await Promise.all([
        import('./serve-isolation.js'),
        import('@birdie/server'),
      ]);
      const snapshot = registry.current();
      const isolation = await serveIsolation(
        io,
        flags,
        settings,
        snapshot,
        (skill) => operator.skillRefusal(skill, snapshot) === undefined,
      );
      serve = {
        workspaces: new Workspaces(isolation.workspaces),
        isolation,
        limits: turnLimits(settings.serve.limits),
        sessions: mcpSessionLimits(settings.serve.limits),
      };
    }
    // `--enable` / `--disable` over the settings' skills, granted to every session made here (as `birdie acp` does).
    const config = { settings, sources: sources as Record<SettingKey, string> };
    const { skills, warnings } = settingSkills({ registry, config });
    for (const line of warnings) warn(io, `birdie: ${line}`);
    const starting = skillsOver(
      skills,
      options.http ? { enable: [], disable: [] } : skillFlags({ registry }, flags),
    );
    const mcpTools = mcpPassThrough(registry, policy, { sharedByUsers: serve !== undefined });
    const listeners = new Set<() => void>();
    const changed = () => {
      for (const listener of listeners) listener();
    };
    mcpTools.onToolsChanged(changed);
    // An MCP client keeps its server running for hours: skill folders edited meanwhile are picked up, as the REPL does.
    const watcher = registry.watch({
      onReload: (messages) => {
        options.onReload?.(messages);
        changed();
      },
      onError: (error) => warn(io, `birdie: skills watch: ${error.message}`),
    });
    return {
      io,
      settings,
      mcpTools,
      store,
      registry,
      policy,
      rules: compileRules(rules),
      approval: approvalMode(flags, settings.approval),
      askRawCommands: options.http === true,
      userId,
      cwd,
      ...(serve ? { serve } : {}),
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      async newSession(owner, title) {
        const session = await store.sessions.create(owner, { title, ...(serve ? { perUser: true } : {}) });
        policy.setGrants(session.id, await grants.load(session.id, owner));
        for (const name of starting.enable) policy.enable(session.id, name);
        for (const name of starting.disable) policy.disable(session.id, name);
        await grants.flush(session.id);
        return session;
      },
      async loadGrants(session) {
        policy.setGrants(session.id, await grants.load(session.id, session.userId));
      },
      forgetGrants(sessionId) {
        policy.forget(sessionId);
        grants.forget(sessionId);
      },
      async close() {
        watcher.close();
        listeners.clear();
        await mcpTools.close().catch(() => undefined);
        await grants.flush().catch(() => undefined);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
