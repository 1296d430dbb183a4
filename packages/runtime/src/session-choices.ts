import { sessionMcp } from './command-turns.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { loadSettingsWithSources } from './isolation.js';
import { attachMentions, type MentionResult } from './mentions.js';
import { isModelSpec, TIER_NAMES } from './model-spec.js';
import type { Runtime } from './runtime.js';

/**
 * A model chosen for a session's next turns (a tier or `vendor:model`), resolved now so that a missing key or an
 * unknown tier is said when it is chosen rather than at the next turn: its name, or why it cannot be used.
 */
export async function chooseModel(
  rt: Runtime,
  spec: string,
): Promise<{ name: string } | { problem: string }> {
  if (!isModelSpec(spec))
    return {
      problem: `"${spec}" is neither a tier (${TIER_NAMES.join(', ')}) nor vendor:model (e.g. openai:gpt-4o-mini).`,
    };
  return { name: (await rt.resolveModel(spec)).name };
}

/**
 * After the config file's `skills.enable` or `skills.disable` changed: the runtime takes the lists saved, so the
 * sessions it makes from now on start with them (`flags`: the `--config` the runtime was opened with).
 */
export async function reloadSkillSettings(rt: Runtime, io: RuntimeIo, flags: Flags): Promise<void> {
  const { settings, sources } = await loadSettingsWithSources(io, flags);
  rt.config.settings.skills = settings.skills;
  rt.config.sources['skills.enable'] = sources['skills.enable'];
  rt.config.sources['skills.disable'] = sources['skills.disable'];
}

/**
 * The text a turn sends for what the user typed: `@path` and `@server:uri` mentions (of the session's enabled MCP
 * servers) attached, with a note for each one attached, cut or refused.
 */
export async function typedTurnText(rt: Runtime, sessionId: string, typed: string): Promise<MentionResult> {
  const mcp = typed.includes('@') ? await sessionMcp(rt, sessionId) : undefined;
  return attachMentions(typed, { cwd: rt.cwd, ...(mcp ? { mcp } : {}) });
}
