import { commandsInForce, serverCandidates, sessionMcp } from '@birdie/runtime/command-turns';
import { promptUsage } from '@birdie/runtime/mcp-prompts';
import { mentionCandidates } from '@birdie/runtime/mentions';
import { SETTING_KEYS } from '@birdie/runtime/settings';
import { visible } from '@birdie/terminal/terminal-text';
import type { Completions } from './completion.js';
import { NAMES, SLASH_COMMANDS } from './slash-commands.js';
import type { ReplState } from './state.js';

const SUBCOMMANDS: Record<string, string[]> = {
  '/skill': ['list', 'enable', 'disable', 'reload'],
  '/session': ['new', 'switch', 'delete', 'list', 'info', 'rename'],
  '/tool': ['list', 'output'],
  '/memory': ['forget'],
  '/approval': ['ask', 'always', 'never'],
  '/config': ['list', 'get', 'set', 'unset'],
};

/**
 * The names Tab offers at this prompt: read once before it (the session list is one store query), so completing
 * is instant while typing.
 */
export async function completionsFor(state: ReplState): Promise<Completions> {
  const snapshot = state.rt.registry.current();
  const skills = snapshot.skills.map((skill) => skill.name);
  const tools = snapshot.skills.flatMap((skill) => skill.tools.map((tool) => tool.name));
  const agents = snapshot.agents.map((agent) => agent.name);
  const sessions = (await state.rt.store.sessions.list(state.rt.userId).catch(() => [])).map((s) => s.id);
  const { commands: custom } = await commandsInForce(state.rt, state.session.id, NAMES).catch(() => ({
    commands: [],
  }));
  const mcp = await sessionMcp(state.rt, state.session.id);
  return {
    commands: [
      ...SLASH_COMMANDS,
      // The menu shows a file's description: pictured. The usage is what gets typed, kept as it is.
      ...custom.map(
        (c) => [c.prompt ? promptUsage(c.prompt) : `/${c.name}`, visible(c.description ?? '')] as const,
      ),
    ],
    mentions: (partial) => mentionCandidates(state.rt.cwd, partial),
    more: (line) => serverCandidates(mcp, custom, line),
    words(before) {
      const [command = '', sub] = before.trim().split(/\s+/);
      const position = before.trim().split(/\s+/).length;
      if (!command.startsWith('/')) return [...tools, ...skills];
      if (position === 1) {
        if (command === '/agent') return ['list', 'none', ...agents];
        if (command === '/model') return [...state.rt.provider.tiers];
        return SUBCOMMANDS[command] ?? [];
      }
      if (command === '/skill' && (sub === 'enable' || sub === 'disable')) return skills;
      if (command === '/session' && (sub === 'switch' || sub === 'delete')) return sessions;
      if (command === '/tool' && sub === 'output') return ['full', 'short', 'off'];
      if (command === '/config' && (sub === 'get' || sub === 'set' || sub === 'unset') && position === 2)
        return [...SETTING_KEYS];
      return [];
    },
  };
}
