import type { TurnLimits } from '@birdie/server';
import type { ServeLimits } from './settings.js';

/**
 * The settings' per-user turn limits, as the server takes them. They are counted in the store, so every worker on
 * one database enforces them together; `--rate-limit` instead counts requests per token in this process only.
 * `birdie mcp --http` applies the same limits to tool calls (each is a run of the user).
 */
export function turnLimits(limits: ServeLimits): TurnLimits {
  return {
    ...(limits.concurrent_turns !== undefined ? { concurrentTurns: limits.concurrent_turns } : {}),
    ...(limits.turns_per_minute !== undefined ? { turnsPerMinute: limits.turns_per_minute } : {}),
  };
}

/** How many MCP sessions `birdie mcp --http` keeps, and for how long without a request. */
export interface McpSessionLimits {
  /** Sessions open at once, all users together. */
  total: number;
  /** Sessions one user may have open at once. */
  perUser: number;
  /** A session without a request (and no call running) for this long is closed. */
  idleMs: number;
}

/** Defaults that keep a forgotten client from holding memory for good, and one user from taking every slot. */
export const MCP_SESSION_DEFAULTS = { total: 100, perUser: 10, idleSeconds: 1800 } as const;

/** `serve.limits.mcp_sessions`, `mcp_sessions_per_user` and `mcp_idle_seconds`, with their defaults. */
export function mcpSessionLimits(limits: ServeLimits): McpSessionLimits {
  return {
    total: limits.mcp_sessions ?? MCP_SESSION_DEFAULTS.total,
    perUser: limits.mcp_sessions_per_user ?? MCP_SESSION_DEFAULTS.perUser,
    idleMs: (limits.mcp_idle_seconds ?? MCP_SESSION_DEFAULTS.idleSeconds) * 1000,
  };
}
