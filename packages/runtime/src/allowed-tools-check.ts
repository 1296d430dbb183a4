import type { Skill } from '@birdie/skill-parser';
import type { DiagnosticLike } from './diagnostics.js';
import { readRegularText } from './regular-file.js';

/** The frontmatter line that declares `allowed-tools` (either spelling), 1-based; the file's first line otherwise. */
async function allowedToolsLine(file: string): Promise<number> {
  const text = (await readRegularText(file)) ?? '';
  const index = text.split(/\r?\n/).findIndex((line) => /^allowed[-_]tools\s*:/.test(line));
  return index === -1 ? 1 : index + 1;
}

/**
 * `skills check`'s warnings for the `allowed-tools` entries a skill's rules leave out (an entry that would allow any
 * command, a tool birdie has no equivalent for, a pattern that does not parse): the same mapping the agent applies
 * (`mapAllowedTools`), so what the author reads is what runs. The graph is imported only when a skill has entries.
 */
export async function allowedToolsWarnings(skills: readonly Skill[]): Promise<DiagnosticLike[]> {
  const declaring = skills.filter((skill) => skill.allowedTools?.length);
  if (declaring.length === 0) return [];
  const { mapAllowedTools } = await import('@birdie/graph');
  const messages: DiagnosticLike[] = [];
  for (const skill of declaring) {
    const { warnings } = mapAllowedTools(skill.allowedTools ?? []);
    if (warnings.length === 0) continue;
    const line = await allowedToolsLine(skill.file);
    for (const warning of warnings)
      messages.push({
        file: skill.file,
        line,
        column: 1,
        reason: `allowed-tools: ${warning}`,
        source: 'birdie',
        ruleId: 'allowed-tools-ignored',
        fatal: false,
      });
  }
  return messages;
}
