import type { ApprovalMode } from '@birdie/graph';
import { agentGapLine, agentGapSummary, agentGaps } from '@birdie/runtime/agent-gaps';
import { commandsInForce } from '@birdie/runtime/command-turns';
import { sandboxSummary } from '@birdie/runtime/isolation';
import { APPROVAL_MODES } from '@birdie/runtime/runtime';
import { memoryFiles, toolsByConfinement } from '@birdie/runtime/session-inspect';
import { rulesInForce } from '@birdie/runtime/session-rules';
import { plural, relativeIfInside } from '@birdie/terminal/diagnostics';
import { table } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';
import { TOOL_OUTPUT_MODES, type ToolOutputMode } from '@birdie/terminal/tool-output';
import { didYouMean } from '../suggest.js';
import { fittedTable, terminalColumns, wrapText } from './screen-fit.js';
import { extraWordsAnswer } from './slash-arity.js';
import { NAMES, SLASH_COMMANDS } from './slash-commands.js';
import { config, settingsLine } from './slash-config.js';
import { customHelp, runCustomCommand } from './slash-custom.js';
import { compact, model } from './slash-model.js';
import { session } from './slash-session.js';
import { skill } from './slash-skill.js';
import { out, type ReplState } from './state.js';

export type SlashResult = 'quit' | undefined;

/** Runs one `/command`; problems are printed, never thrown, so a typo never ends the session. */
export async function runSlash(state: ReplState, line: string): Promise<SlashResult> {
  const [head = '', ...rest] = line.slice(1).trim().split(/\s+/);
  const name = head.toLowerCase();
  const arg = line.slice(1).trim().slice(head.length).trim();
  const s = state.style;
  const extra = extraWordsAnswer(name, rest);
  if (extra) return out(state, extra);
  try {
    switch (name) {
      case 'help':
        return await help(state);
      case 'quit':
      case 'exit':
        return 'quit';
      case 'clear':
        state.io.stdout.write('\x1b[2J\x1b[3J\x1b[H');
        return;
      case 'remember': {
        if (!arg) return out(state, 'Usage: /remember TEXT');
        const entry = await state.rt.store.memory.add(state.rt.userId, arg);
        return out(
          state,
          `${s('green', '✓')} remembered as #${entry.id} (in every session of ${state.rt.userId})`,
        );
      }
      case 'memory':
        return await memory(state, rest);
      case 'info':
        return await info(state);
      case 'tool':
        return tool(state, rest);
      case 'skill':
        return await skill(state, rest);
      case 'session':
        return await session(state, rest);
      case 'new':
        return await session(state, ['new']);
      case 'agent':
        return agentCommand(state, rest);
      case 'model':
        return await model(state, rest);
      case 'compact':
        return await compact(state, arg);
      case 'config':
        return await config(state, rest);
      case 'approval': {
        const mode = rest[0];
        if (!mode) return out(state, `approval: ${state.approval}  (/approval ask|always|never)`);
        if (!(APPROVAL_MODES as readonly string[]).includes(mode)) {
          return out(state, `approval must be ask, always or never.${didYouMean(mode, APPROVAL_MODES)}`);
        }
        state.approval = mode as ApprovalMode;
        return out(state, `${s('green', '✓')} approval: ${mode}`);
      }
      case 'permissions':
        return await permissions(state);
      default: {
        if (await runCustomCommand(state, head, arg, NAMES)) return;
        return out(
          state,
          `Unknown command /${head}.${didYouMean(head, NAMES).replace(/"([^"]+)"/, '"/$1"')} Type /help.`,
        );
      }
    }
  } catch (error) {
    out(state, `${s('red', 'error:')} ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `/permissions`: the approval rules in force (see `rulesInForce`), each with its source. */
async function permissions(state: ReplState): Promise<SlashResult> {
  const rules = await rulesInForce(state.rt, state.session.id);
  if (rules.length === 0)
    return out(
      state,
      "no approval rules (add one: birdie config add permissions.allow 'run_bash(npm test *)'; agents' approve lists apply while they run)",
    );
  const lines = rules.map(
    (r) =>
      `${r.effect.padEnd(5)}  ${visible(r.pattern)}  ${state.style('dim', `${r.source.kind}${r.source.name ? ` ${visible(r.source.name)}` : ''}`)}`,
  );
  return out(state, lines.join('\n'));
}

/** `/agent`: who answers; `/agent list`; `/agent NAME` switches from the next turn; `/agent none`: no agent. */
async function agentCommand(state: ReplState, rest: string[]): Promise<undefined> {
  const snapshot = state.rt.registry.current();
  const sub = rest[0];
  if (sub === undefined) {
    const current = state.agentName ? snapshot.getAgent(state.agentName) : undefined;
    if (!current)
      return out(
        state,
        'No agent: the default prompt answers. /agent list shows the agents; /agent NAME picks one.',
      );
    return out(
      state,
      `agent: ${visible(current.name)} — ${visible(current.description)}\n${state.style('dim', visible(current.file))}`,
    );
  }
  if (sub === 'list') {
    if (snapshot.agents.length === 0)
      return out(state, 'No agents loaded. `birdie agents new NAME` makes one.');
    return out(
      state,
      table(
        snapshot.agents.map((a) => [
          a.name === state.agentName ? '*' : ' ',
          visible(a.name),
          snapshot.agentLayerOf(a.name)?.layer ?? '',
          firstLine(a.description),
        ]),
      ),
    );
  }
  if (sub === 'none' || sub === 'default') {
    state.nextAgent = null;
    state.agentName = undefined;
    return out(state, `${state.style('green', '✓')} no agent from the next turn`);
  }
  const found = snapshot.getAgent(sub);
  if (!found) {
    const names = snapshot.agents.map((a) => a.name);
    return out(state, visible(`No agent "${sub}".${didYouMean(sub, names)} /agent list shows them.`));
  }
  state.nextAgent = found.name;
  state.agentName = found.name;
  out(state, `${state.style('green', '✓')} ${visible(found.name)} answers from the next turn`);
  const gaps = await agentGaps(state.rt, state.session.id, found.name);
  return gaps ? out(state, state.style('yellow', agentGapLine(gaps, 'slash'))) : undefined;
}

async function help(state: ReplState): Promise<undefined> {
  // Fitted to the terminal: a narrow one would break the descriptions at its edge, mid-word.
  const columns = terminalColumns(state.io.stdout);
  out(state, fittedTable(SLASH_COMMANDS, columns));
  // Custom commands (~/.birdie/commands, a trusted project's .birdie/commands), and the clashes among names.
  const custom = customHelp(state, await commandsInForce(state.rt, state.session.id, NAMES));
  if (custom.rows.length > 0)
    out(
      state,
      `Your commands:\n${fittedTable(
        custom.rows.map(([c, d]) => [c ?? '', d ?? ''] as const),
        columns,
      )}`,
    );
  for (const line of custom.clashes) out(state, state.style('yellow', line));
  const keys =
    'Keys: Enter sends · Ctrl+J new line · Ctrl+C cancels a turn (twice on an empty line quits) · Ctrl+D deletes the character under the cursor, or quits on an empty line';
  out(state, Number.isFinite(columns) ? wrapText(keys, columns - 1).join('\n') : keys);
  return undefined;
}

async function memory(state: ReplState, rest: string[]): Promise<undefined> {
  const { store, userId } = state.rt;
  if (rest[0] === 'forget') {
    // The number `/memory` lists: `0x1` or `1e0` is not one of them.
    const id = /^\d{1,15}$/.test(rest[1] ?? '') ? Number(rest[1]) : Number.NaN;
    if (!Number.isInteger(id)) return out(state, 'Usage: /memory forget ID');
    return out(state, (await store.memory.remove(userId, id)) ? `Forgot #${id}.` : `No memory #${id}.`);
  }
  if (rest.length && rest[0] !== 'list') return out(state, `Usage: /memory [list | forget ID]`);
  const entries = await store.memory.list(userId);
  if (!entries.length) return out(state, 'No long-term memory yet. Add some with /remember TEXT.');
  return out(
    state,
    table(entries.map((e) => [`#${e.id}`, e.createdAt.toISOString().slice(0, 10), e.content])),
  );
}

/** The memory files a turn reads now, and the project's that it leaves out while the folder is untrusted. */
async function memoryFilesLine(rt: ReplState['rt']): Promise<string> {
  const files = await memoryFiles(rt);
  const shown = files.read.map((path) => relativeIfInside(rt.cwd, path));
  const skipped = files.skipped.map((path) => relativeIfInside(rt.cwd, path));
  const parts = [
    shown.join(', ') || 'none',
    ...(skipped.length ? [`not read (folder not trusted): ${skipped.join(', ')}`] : []),
  ];
  return parts.join('; ');
}

async function info(state: ReplState): Promise<undefined> {
  const { rt, session } = state;
  const totals = (await rt.store.sessions.get(session.id, rt.userId)) ?? session;
  const sources = Object.entries(rt.provider.sources)
    .filter(([field]) => field !== 'timeout' && field !== 'max_retries')
    .map(([field, source]) => `${field} ← ${source}`);
  const rows = [
    ['user', rt.userId],
    [
      'session',
      `${session.id} (${plural(totals.turns, 'turn')}, ↑${totals.inputTokens} ↓${totals.outputTokens} tok)`,
    ],
    ['provider', `${rt.provider.config.vendor} · ${rt.provider.config.model}`],
    [
      'model',
      `${state.modelName}${rt.provider.tiers.length ? ` (tiers: ${rt.provider.tiers.join(', ')})` : ''}`,
    ],
    ['context', state.contextWindow ? `${state.contextTokens} of ${state.contextWindow} tok` : 'no call yet'],
    ['config', sources.join(', ')],
    ...rt.provider.ignored.map((v) => ['not used', `${v.field} ← ${v.source} (for ${v.vendor})`]),
    ['approval', state.approval],
    ['tool output', state.toolMode],
    ['settings', await settingsLine(state)],
    ['tools', await boundToolsLine(state)],
    ['cwd', rt.cwd],
    [
      'skills',
      rt.registry.directories.map((d) => `${d.layer}:${relativeIfInside(rt.cwd, d.path)}`).join('  '),
    ],
    ['store', rt.store.location],
    ...(state.agentName
      ? [['agent', agentGapSummary(await agentGaps(rt, session.id, state.agentName), state.agentName)]]
      : []),
    ['memory files', await memoryFilesLine(rt)],
    ['sandbox', await sandboxSummary()],
    ...(await confinedTools(state)),
  ];
  return out(state, table(rows.map(([k, v]) => [state.style('bold', k!), v!])));
}

async function tool(state: ReplState, rest: string[]): Promise<undefined> {
  const sub = rest[0] ?? 'list';
  if (sub === 'output') {
    const mode = rest[1];
    if (!mode) return out(state, `tool output: ${state.toolMode}  (/tool output full|short|off)`);
    if (!(TOOL_OUTPUT_MODES as readonly string[]).includes(mode)) {
      return out(state, `tool output must be full, short or off.${didYouMean(mode, TOOL_OUTPUT_MODES)}`);
    }
    state.toolMode = mode as ToolOutputMode;
    return out(state, `${state.style('green', '✓')} tool output: ${mode}`);
  }
  if (sub !== 'list')
    return out(
      state,
      `Usage: /tool list | /tool output full|short|off.${didYouMean(sub, ['list', 'output'])}`,
    );
  const tools = await state.rt.agent.toolsFor(state.session.id);
  if (!tools.length) return out(state, 'No tools enabled. /skill list shows skills you can enable.');
  return out(
    state,
    table(
      tools.map((t) => [visible(t.name), visible(t.skill ?? '-'), firstLine(t.description)]),
      ['TOOL', 'SKILL', 'DESCRIPTION'],
    ),
  );
}

/**
 * The tools the next model call is given: every one, or over the tool budget the bound ones (those `find_tools`
 * found marked) and how many `find_tools` can still search.
 */
async function boundToolsLine(state: ReplState): Promise<string> {
  const tools = await state.rt.agent.toolsFor(state.session.id);
  const bound = tools.filter((t) => t.bound !== false);
  if (bound.length === tools.length) return `${plural(tools.length, 'tool')}, all bound`;
  const names = bound.map((t) => (t.bound === 'found' ? `${t.name} (found)` : t.name));
  return `${bound.length} of ${tools.length} bound (over the tool budget; find_tools searches the other ${tools.length - bound.length}): ${visible(names.join(', '))}`;
}

/** The session's tools by how they run (sandboxed, in-process, in containers, unconfined): what a call can touch. */
async function confinedTools(state: ReplState): Promise<string[][]> {
  const by = await toolsByConfinement(state.rt, state.session.id);
  const row = (how: keyof typeof by, label: string, note = '') =>
    by[how].length > 0 ? [[label, `${visible(by[how].join(', '))}${note}`]] : [];
  return [
    [
      'sandboxed',
      by.sandbox.length > 0 ? `${visible(by.sandbox.join(', '))} (bubblewrap)` : '(no enabled tool)',
    ],
    ...row('in-process', 'in-process', " (birdie's own tools: confined by their own path checks)"),
    ...row('container', 'in containers'),
    ...row('none', 'unconfined'),
  ];
}

/** The first line of a description (a file's text: pictured), cut to 80 characters. */
function firstLine(text: string): string {
  const line = visible(text.split('\n')[0] ?? '');
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
