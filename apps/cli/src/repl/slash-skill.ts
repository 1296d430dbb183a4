import { reloadSkills, sessionSkills, setSessionSkills } from '@birdie/runtime/session-skills';
import { type DiagnosticLike, formatDiagnostic, plural } from '@birdie/terminal/diagnostics';
import { table } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';
import { didYouMean } from '../suggest.js';
import { out, type ReplState } from './state.js';

/** `/skill list | enable NAME… | disable NAME… | reload`. */
export async function skill(state: ReplState, rest: string[]): Promise<undefined> {
  const { rt, session, style } = state;
  const sub = rest[0] ?? 'list';
  if (sub === 'list') {
    const rows = sessionSkills(rt, session.id).map((k) => [
      k.on ? style('green', 'on ') : style('dim', 'off'),
      visible(k.name),
      visible(k.kind),
      visible(k.tools.join(', ')) || '-',
      k.setBy === 'session' ? 'this session' : 'default',
    ]);
    return out(
      state,
      rows.length ? table(rows, ['', 'SKILL', 'KIND', 'TOOLS', 'SET BY']) : 'No skills loaded.',
    );
  }
  if (sub === 'reload') {
    const { skills, errors } = await reloadSkills(rt);
    out(
      state,
      `${style('green', '✓')} reloaded: ${plural(skills, 'skill')}, ${plural(errors.length, 'error')}`,
    );
    for (const m of errors) out(state, formatDiagnostic(m as DiagnosticLike, rt.cwd, style));
    return undefined;
  }
  if (sub === 'enable' || sub === 'disable') {
    const names = rest.slice(1);
    if (names.length === 0) return out(state, `Usage: /skill ${sub} NAME…`);
    const set = await setSessionSkills(rt, session.id, names, sub === 'enable');
    if ('missing' in set) {
      const lines = set.missing.map(
        ({ missing, near }) =>
          `No skill "${visible(missing)}".${near.length ? ` Did you mean "${visible(near[0]!)}"?` : ''}`,
      );
      // Several names: none was changed, so a typo never leaves the session half changed.
      if (names.length > 1) lines.push(`Nothing was changed. /skill list shows the skills.`);
      else lines[0] += ' /skill list shows them.';
      return out(state, lines.join('\n'));
    }
    return out(
      state,
      `${style('green', '✓')} ${set.skills.map((name) => visible(name)).join(', ')} ${sub}d for session ${session.id} (from the next turn)`,
    );
  }
  return out(
    state,
    `Usage: /skill list | enable NAME… | disable NAME… | reload.${didYouMean(sub, ['list', 'enable', 'disable', 'reload'])}`,
  );
}
