import type { WorkspaceDeclarations } from '@birdie/registry';
import { answerTrust, trustRisks, unansweredWorkspaces } from '@birdie/runtime/trust-answers';
import { plural } from '@birdie/terminal/diagnostics';
import { visible } from '@birdie/terminal/terminal-text';
import { describeWorkspace, workspaceContents } from '@birdie/terminal/workspace-trust';
import { out, type ReplState } from './state.js';

type Answer = 'yes' | 'no' | 'later';

/**
 * Asks about each untrusted workspace once: it names the folder and lists what it would add (skills, tools with their
 * entrypoints, MCP commands with their arguments). Yes stores the answer with the digest of those declarations and
 * loads the skills; No stores a refusal (not asked again until the declarations change); Not now asks next session.
 */
export async function askPendingTrust(state: ReplState): Promise<void> {
  const pending = unansweredWorkspaces(state.rt, state.trustPutOff);
  if (pending.length === 0) return;
  const { io, style, rt } = state;
  const prompts = await import('@clack/prompts');
  let trusted = false;
  for (const workspace of pending) {
    prompts.note(
      describeWorkspace(workspace, rt.cwd, style).join('\n'),
      `${visible(workspace.path)} has ${workspaceContents(workspace)} you have not trusted`,
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
        style('dim', `skipped ${visible(workspace.path)} for this session; \`birdie trust\` there trusts it`),
      );
      continue;
    }
    const decision = answer === 'yes' ? 'trusted' : 'refused';
    await answerTrust(rt, workspace, decision);
    if (answer === 'yes') trusted = true;
    else
      out(
        state,
        style(
          'dim',
          `${visible(workspace.path)} stays untrusted; its ${workspaceContents(workspace)} do not load`,
        ),
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

/** The question names what saying yes lets in (see `trustRisks`). */
function trustQuestion(workspace: WorkspaceDeclarations): string {
  const said = trustRisks(workspace).join('; ');
  return `Load them? ${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
}
