import type { WorkspaceDeclarations } from '@birdie/registry';
import { refusedBefore } from '@birdie/runtime/trust';
import { plural } from '../render/diagnostics.js';
import { describeWorkspace, workspaceContents } from '../render/workspace-trust.js';
import { out, type ReplState } from './state.js';

type Answer = 'yes' | 'no' | 'later';

/** Untrusted workspaces the user has not answered about for what they declare now (nor put off this session). */
export function pendingTrust(state: ReplState): WorkspaceDeclarations[] {
  return state.rt.registry
    .current()
    .untrusted.filter((w) => !refusedBefore(state.rt.trust, w) && !state.trustPutOff.has(w.digest));
}

/**
 * Asks about each untrusted workspace once: it names the folder and lists what it would add (skills, tools with their
 * entrypoints, MCP commands with their arguments). Yes stores the answer with the digest of those declarations and
 * loads the skills; No stores a refusal (not asked again until the declarations change); Not now asks next session.
 */
export async function askPendingTrust(state: ReplState): Promise<void> {
  const pending = pendingTrust(state);
  if (pending.length === 0) return;
  const { io, style, rt } = state;
  const prompts = await import('@clack/prompts');
  let trusted = false;
  for (const workspace of pending) {
    prompts.note(
      describeWorkspace(workspace, rt.cwd, style).join('\n'),
      `${workspace.path} has ${workspaceContents(workspace)} you have not trusted`,
      { output: io.stdout },
    );
    const answer = await prompts.select<Answer>({
      input: io.stdin,
      output: io.stdout,
      message: trustQuestion(workspace),
      options: [
        { value: 'yes', label: 'Yes, trust this folder' },
        { value: 'no', label: 'No (ask again only if what they declare changes)' },
        { value: 'later', label: 'Not now' },
      ],
      initialValue: 'later',
    });
    if (prompts.isCancel(answer) || answer === 'later') {
      state.trustPutOff.add(workspace.digest);
      out(
        state,
        style('dim', `skipped ${workspace.path} for this session; \`birdie trust\` there trusts it`),
      );
      continue;
    }
    const decision = answer === 'yes' ? 'trusted' : 'refused';
    await rt.store.trust.set(workspace.path, { digest: workspace.digest, decision });
    rt.trust.set(workspace.path, { dir: workspace.path, digest: workspace.digest, decision, at: new Date() });
    if (answer === 'yes') trusted = true;
    else
      out(
        state,
        style('dim', `${workspace.path} stays untrusted; its ${workspaceContents(workspace)} do not load`),
      );
  }
  if (trusted) {
    await rt.registry.reload();
    const { skills, agents } = rt.registry.current();
    out(
      state,
      `${style('green', '✓')} trusted; ${plural(skills.length, 'skill')}${agents.length ? ` and ${plural(agents.length, 'agent')}` : ''} loaded`,
    );
  }
}

/** What saying yes lets in: code that runs, agents that pre-approve, text that reaches every prompt. */
function trustQuestion(workspace: WorkspaceDeclarations): string {
  const risks = [
    ...(workspace.skills.length || workspace.agents.length
      ? ['their tools and MCP servers can run commands on this machine']
      : []),
    ...(workspace.agents.length ? ['agents run the tools they pre-approve without asking'] : []),
    ...(workspace.memoryFiles.length ? ['memory files go into every prompt'] : []),
    ...(workspace.settings ? ["the project's settings apply"] : []),
  ];
  const said = risks.join('; ');
  return `Load them? ${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
}
