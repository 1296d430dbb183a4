/**
 * The one table of limits for running a tool. The agent and `birdie tool` both build tools with these, so the same
 * call gives the same result (and the same error) whichever way it runs; `createAgent` options may override them.
 */
export interface ToolLimits {
  /** Timeout of a skill tool that declares no `timeout`, ms. */
  timeoutMs: number;
  /** Tool output above this many characters is cut, with a note saying how much was dropped. */
  maxOutputChars: number;
  /** Largest file `read_reference` returns, in characters (it bounds its own output). */
  maxReferenceChars: number;
  /** Timeout of one MCP tool call when its server declares none, ms. */
  mcpToolTimeoutMs: number;
}

export const TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  timeoutMs: 60_000,
  maxOutputChars: 32_000,
  maxReferenceChars: 64_000,
  mcpToolTimeoutMs: 60_000,
});

/**
 * The longest delay a Node timer holds (2^31-1 ms, about 24.8 days): a longer one fires at once. Skill and agent
 * files refuse longer timeouts where they are read; a timeout from elsewhere (the library's options) is held to this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timeout in seconds as a timer's delay: never longer than a timer holds. */
export function timerMs(seconds: number): number {
  return Math.min(seconds * 1000, MAX_TIMER_MS);
}

/**
 * Bytes an entrypoint may capture for a tool whose output is later cut to `maxOutputChars` characters: UTF-8 needs
 * at most 4 bytes a character, plus room for the tail the cut note counts. It only bounds memory.
 */
export function captureBytes(limits: Pick<ToolLimits, 'maxOutputChars'>): number {
  return limits.maxOutputChars * 4 + 1024 * 1024;
}
