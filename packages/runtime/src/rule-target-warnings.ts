import type { RegistrySnapshot } from '@birdie/registry';
import { didYouMean as closest } from './did-you-mean.js';
import { BUILTIN_TOOLS } from './skills.js';

// A rule is matched against tool names, skill names and argument names as they are: one that names what no skill has
// matches nothing, which for a deny rule means a user who believes a command is refused while it is not. Written all
// the same (a skill may come later, an MCP server's tool may have the name), but said when it is written.

/**
 * The warnings for a valid approval pattern of setting `key` whose skill, tool or constrained argument the loaded
 * skills do not have (project skills not yet trusted count as having theirs).
 */
export async function ruleTargetWarnings(
  key: string,
  pattern: string,
  snapshot: RegistrySnapshot,
): Promise<string[]> {
  const { parseApprovalPattern, isApprovalRuleError } = await import('@birdie/graph');
  let parsed: ReturnType<typeof parseApprovalPattern>;
  try {
    parsed = parseApprovalPattern(pattern);
  } catch (error) {
    // A bad pattern is the write's own error, reported there.
    if (isApprovalRuleError(error)) return [];
    throw error;
  }
  const where = `setting ${key}: \`${pattern}\``;
  const declared = [
    ...snapshot.skills.map((s) => ({ name: s.name, tools: s.tools })),
    ...snapshot.untrusted.flatMap((w) => w.skills),
  ];
  if (parsed.skill !== undefined && !declared.some((s) => s.name === parsed.skill))
    return [
      `${where} names the skill \`${parsed.skill}\`, which is not loaded: it matches nothing.${closest(
        parsed.skill,
        declared.map((s) => s.name),
      )}`,
    ];
  const tool = parsed.tool;
  if (tool === undefined || tool.includes('*')) return [];
  const inScope = parsed.skill === undefined ? declared : declared.filter((s) => s.name === parsed.skill);
  const tools = inScope.flatMap((s) => s.tools);
  const found = tools.find((t) => t.name === tool);
  if (!found) {
    if (parsed.skill === undefined && BUILTIN_TOOLS.includes(tool)) return [];
    const names = [...new Set([...tools.map((t) => t.name), ...(parsed.skill ? [] : BUILTIN_TOOLS)])];
    return parsed.skill === undefined
      ? [
          `${where} names the tool \`${tool}\`, which no skill declares: it matches no call of the skills (an MCP server's tool of that name would still match).${closest(tool, names)}`,
        ]
      : [
          `${where} names the tool \`${tool}\`, which the skill \`${parsed.skill}\` does not declare: it matches nothing.${closest(tool, names)}`,
        ];
  }
  const properties = Object.keys(
    ((found as { schema?: { properties?: Record<string, unknown> } }).schema?.properties ?? {}) as object,
  );
  if (properties.length === 0) return [];
  return (parsed.arguments ?? [])
    .filter((a) => !properties.includes(a.key))
    .map(
      (a) =>
        `${where} constrains the argument \`${a.key}\`, which \`${tool}\` does not take (its arguments: ${properties.join(', ')}): it matches no call.${closest(a.key, properties)}`,
    );
}
