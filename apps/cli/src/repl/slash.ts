import type { ApprovalMode } from '@birdie/graph';
import { type DiagnosticLike, formatDiagnostic, relativeIfInside } from '../render/diagnostics.js';
import { table } from '../render/style.js';
import { TOOL_OUTPUT_MODES, type ToolOutputMode } from '../render/tool-output.js';
import { APPROVAL_MODES, findSession } from '../runtime.js';
import { closest, didYouMean } from '../suggest.js';
import { formatHistory, readHistoryOf } from './history-view.js';
import { out, type ReplState, switchTo } from './state.js';

export const SLASH_COMMANDS: Array<[string, string]> = [
  ['/help', 'this list'],
  ['/remember TEXT', 'keep TEXT in long-term memory (all your sessions)'],
  ['/memory [forget ID]', 'list long-term memory, or forget one entry'],
  ['/info', 'user, session, turns, provider and where its config came from'],
  ['/tool list', 'tools the model can call now'],
  ['/tool output full|short|off', 'how much of each tool result to show (default short)'],
  ['/skill list', 'skills and whether this session may use them'],
  ['/skill enable|disable NAME', 'change it for this session (saved; applies next turn)'],
  ['/skill reload', 're-read every skills folder'],
  ['/session new|switch ID|delete ID|list|info', 'manage sessions'],
  ['/new', 'start a new session'],
  ['/approval ask|always|never', 'when tool calls need your approval'],
  ['/clear', 'clear the screen'],
  ['/quit, /exit', 'leave (Ctrl+D too)'],
];

const NAMES = [
  'help',
  'remember',
  'memory',
  'info',
  'tool',
  'skill',
  'session',
  'new',
  'approval',
  'clear',
  'quit',
  'exit',
];

export type SlashResult = 'quit' | undefined;

/** Runs one `/command`; problems are printed, never thrown, so a typo never ends the session. */
export async function runSlash(state: ReplState, line: string): Promise<SlashResult> {
  const [head = '', ...rest] = line.slice(1).trim().split(/\s+/);
  const name = head.toLowerCase();
  const arg = line.slice(1).trim().slice(head.length).trim();
  const s = state.style;
  try {
    switch (name) {
      case 'help':
        return help(state);
      case 'quit':
      case 'exit':
        return 'quit';
      case 'clear':
        state.io.stdout.write('\x1b[2J\x1b[3J\x1b[H');
        return;
      case 'remember': {
        if (!arg) return out(state, 'Usage: /remember TEXT');
        const entry = state.rt.store.memory.add(state.rt.userId, arg);
        return out(
          state,
          `${s('green', '✓')} remembered as #${entry.id} (in every session of ${state.rt.userId})`,
        );
      }
      case 'memory':
        return memory(state, rest);
      case 'info':
        return info(state);
      case 'tool':
        return tool(state, rest);
      case 'skill':
        return await skill(state, rest);
      case 'session':
        return await session(state, rest);
      case 'new':
        return await session(state, ['new']);
      case 'approval': {
        const mode = rest[0];
        if (!mode) return out(state, `approval: ${state.approval}  (/approval ask|always|never)`);
        if (!(APPROVAL_MODES as readonly string[]).includes(mode)) {
          return out(state, `approval must be ask, always or never.${didYouMean(mode, APPROVAL_MODES)}`);
        }
        state.approval = mode as ApprovalMode;
        return out(state, `${s('green', '✓')} approval: ${mode}`);
      }
      default:
        return out(
          state,
          `Unknown command /${head}.${didYouMean(head, NAMES).replace(/"([^"]+)"/, '"/$1"')} Type /help.`,
        );
    }
  } catch (error) {
    out(state, `${s('red', 'error:')} ${error instanceof Error ? error.message : String(error)}`);
  }
}

function help(state: ReplState): undefined {
  out(state, table(SLASH_COMMANDS.map(([c, d]) => [c, d])));
  out(
    state,
    'Keys: Enter sends · Ctrl+J new line · Ctrl+C cancels a turn (twice on an empty line quits) · Ctrl+D quits',
  );
  return undefined;
}

function memory(state: ReplState, rest: string[]): undefined {
  const { store, userId } = state.rt;
  if (rest[0] === 'forget') {
    const id = Number(rest[1]);
    if (!Number.isInteger(id)) return out(state, 'Usage: /memory forget ID');
    return out(state, store.memory.remove(userId, id) ? `Forgot #${id}.` : `No memory #${id}.`);
  }
  if (rest.length && rest[0] !== 'list') return out(state, `Usage: /memory [list | forget ID]`);
  const entries = store.memory.list(userId);
  if (!entries.length) return out(state, 'No long-term memory yet. Add some with /remember TEXT.');
  return out(
    state,
    table(entries.map((e) => [`#${e.id}`, e.createdAt.toISOString().slice(0, 10), e.content])),
  );
}

function info(state: ReplState): undefined {
  const { rt, session } = state;
  const totals = rt.store.sessions.get(session.id) ?? session;
  const sources = Object.entries(rt.provider.sources)
    .filter(([field]) => field !== 'timeout' && field !== 'max_retries')
    .map(([field, source]) => `${field} ← ${source}`);
  const rows = [
    ['user', rt.userId],
    ['session', `${session.id} (${totals.turns} turns, ↑${totals.inputTokens} ↓${totals.outputTokens} tok)`],
    ['provider', `${rt.provider.config.vendor} · ${rt.provider.config.model}`],
    ['config', sources.join(', ')],
    ['approval', state.approval],
    ['tool output', state.toolMode],
    ['cwd', rt.cwd],
    [
      'skills',
      rt.registry.directories.map((d) => `${d.layer}:${relativeIfInside(rt.cwd, d.path)}`).join('  '),
    ],
    ['store', rt.store.file],
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
      tools.map((t) => [t.name, t.skill ?? '-', firstLine(t.description)]),
      ['TOOL', 'SKILL', 'DESCRIPTION'],
    ),
  );
}

async function skill(state: ReplState, rest: string[]): Promise<undefined> {
  const { rt, session, style } = state;
  const sub = rest[0] ?? 'list';
  const snapshot = rt.registry.current();
  if (sub === 'list') {
    const allowed = new Set(rt.policy.allowedSkills(session.id).map((k) => k.name));
    const grants = rt.policy.grants(session.id);
    const explicit = new Set([...grants.enabled, ...grants.disabled].map((n) => n.toLowerCase()));
    const rows = snapshot.skills.map((k) => [
      allowed.has(k.name) ? style('green', 'on ') : style('dim', 'off'),
      k.name,
      k.kind,
      k.tools.map((t) => t.name).join(', ') || '-',
      explicit.has(k.name.toLowerCase()) ? 'this session' : 'default',
    ]);
    return out(
      state,
      rows.length ? table(rows, ['', 'SKILL', 'KIND', 'TOOLS', 'SET BY']) : 'No skills loaded.',
    );
  }
  if (sub === 'reload') {
    const messages = await rt.registry.reload();
    const fatal = messages.filter((m) => m.fatal === true);
    out(
      state,
      `${style('green', '✓')} reloaded: ${rt.registry.current().skills.length} skills, ${fatal.length} errors`,
    );
    for (const m of fatal) out(state, formatDiagnostic(m as DiagnosticLike, rt.cwd, style));
    return undefined;
  }
  if (sub === 'enable' || sub === 'disable') {
    const name = rest[1];
    if (!name) return out(state, `Usage: /skill ${sub} NAME`);
    const found = snapshot.getSkill(name);
    if (!found) {
      const near = snapshot.suggest(name);
      return out(
        state,
        `No skill "${name}".${near.length ? ` Did you mean "${near[0]}"?` : ''} /skill list shows them.`,
      );
    }
    if (sub === 'enable') rt.policy.enable(session.id, found.name);
    else rt.policy.disable(session.id, found.name);
    rt.store.grants.set(session.id, rt.policy.grants(session.id));
    return out(
      state,
      `${style('green', '✓')} ${found.name} ${sub}d for session ${session.id} (from the next turn)`,
    );
  }
  return out(
    state,
    `Usage: /skill list | enable NAME | disable NAME | reload.${didYouMean(sub, ['list', 'enable', 'disable', 'reload'])}`,
  );
}

async function session(state: ReplState, rest: string[]): Promise<undefined> {
  const { rt, style } = state;
  const sub = rest[0] ?? 'info';
  switch (sub) {
    case 'new': {
      switchTo(state, rt.store.sessions.create(rt.userId));
      return out(state, `${style('green', '✓')} new session ${state.session.id}`);
    }
    case 'switch': {
      if (!rest[1]) return out(state, 'Usage: /session switch ID');
      const target = await findSession(rt.store, rest[1], rt.userId);
      if (target.userId !== rt.userId) return out(state, `Session ${target.id} belongs to ${target.userId}.`);
      switchTo(state, target);
      out(state, `${style('green', '✓')} switched to ${target.id}`);
      const history = formatHistory(await readHistoryOf(state), style, 3);
      if (history) out(state, history);
      return undefined;
    }
    case 'delete': {
      if (!rest[1]) return out(state, 'Usage: /session delete ID');
      const target = await findSession(rt.store, rest[1], rt.userId);
      if (target.id === state.session.id)
        return out(state, 'That is the current session; /session new or switch first.');
      rt.store.sessions.delete(target.id);
      return out(state, `${style('green', '✓')} deleted ${target.id}`);
    }
    case 'list': {
      const sessions = rt.store.sessions.list(rt.userId);
      return out(
        state,
        table(
          sessions.map((x) => [
            x.id === state.session.id ? '*' : ' ',
            x.id,
            `${x.turns} turns`,
            `↑${x.inputTokens} ↓${x.outputTokens}`,
            x.title ?? '',
          ]),
        ),
      );
    }
    case 'info': {
      const x = rt.store.sessions.get(state.session.id) ?? state.session;
      return out(
        state,
        `session ${x.id} · user ${x.userId} · ${x.turns} turns · ↑${x.inputTokens} ↓${x.outputTokens} tok · created ${x.createdAt.toISOString().slice(0, 16).replace('T', ' ')}`,
      );
    }
    default: {
      const near = closest(sub, ['new', 'switch', 'delete', 'list', 'info'], 1);
      return out(
        state,
        `Usage: /session new | switch ID | delete ID | list | info.${near.length ? ` Did you mean "${near[0]}"?` : ''}`,
      );
    }
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
