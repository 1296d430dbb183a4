import type { Reporter } from './diagnostics.js';
import type { Field } from './frontmatter.js';

/**
 * The reference validator's name rule: after NFKC normalisation, letters and digits of any script (lower-case), single
 * hyphens between them.
 */
const NAME = /^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*$/u;
const nameFormatOk = (name: string) => NAME.test(name) && name === name.toLowerCase();

/** Characters as a reader counts them (code points, not UTF-16 units). */
const length = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * The Agent Skills standard's limits. They are warnings: skills written for other clients (or in the original birdie
 * format, with names like `DuckDuckGo`) still load. `container` is what the name must match: a skill's folder, or an
 * agent file's name without `.md`.
 */
export function checkAgentSkillsRules(
  data: { name?: string; description?: string; compatibility?: string },
  fields: Map<string, Field>,
  container: { kind: 'folder' | 'file'; name: string },
  reporter: Reporter,
): void {
  const at = (key: string): [number, number] => {
    const field = fields.get(key)!;
    return [field.valueStart, field.valueEnd];
  };
  if (data.name !== undefined) {
    const name = data.name.normalize('NFKC');
    if (!nameFormatOk(name)) {
      reporter.report(
        'name-format',
        `Name \`${name}\` should be lower-case letters, digits and single hyphens`,
        ...at('name'),
      );
    }
    if (length(name) > 64)
      reporter.report('name-too-long', `Name is ${length(name)} characters; the limit is 64`, ...at('name'));
    if (name !== container.name.normalize('NFKC')) {
      const [ruleId, what] =
        container.kind === 'folder'
          ? (['name-folder-mismatch', 'its folder'] as const)
          : (['name-file-mismatch', 'its file name'] as const);
      reporter.report(ruleId, `Name \`${name}\` does not match ${what} \`${container.name}\``, ...at('name'));
    }
  }
  if (data.description !== undefined && length(data.description) > 1024) {
    reporter.report(
      'description-too-long',
      `Description is ${length(data.description)} characters; the limit is 1024`,
      ...at('description'),
    );
  }
  if (data.compatibility !== undefined && length(data.compatibility) > 500) {
    reporter.report(
      'compatibility-too-long',
      `Compatibility is ${length(data.compatibility)} characters; the limit is 500`,
      ...at('compatibility'),
    );
  }
}
