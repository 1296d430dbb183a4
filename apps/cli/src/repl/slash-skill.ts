import { type DiagnosticLike, formatDiagnostic, plural } from '../render/diagnostics.js';
import { table } from '../render/style.js';
import { didYouMean } from '../suggest.js';
import { out, type ReplState } from './state.js';

/** `/skill list | enable NAME | disable NAME | reload`; the policy saves grants to the session at once. */
export async function skill(state: ReplState, rest: string[]): Promise<undefined> {
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
      `${style('green', '✓')} reloaded: ${plural(rt.registry.current().skills.length, 'skill')}, ${plural(fatal.length, 'error')}`,
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
    // The policy saves the grant to the session itself.
    if (sub === 'enable') rt.policy.enable(session.id, found.name);
    else rt.policy.disable(session.id, found.name);
    await rt.saveGrants();
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
