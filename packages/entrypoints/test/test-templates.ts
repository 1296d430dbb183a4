import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTemplate, placeholderNames } from '../src/template.js';
import { INTEGER_FLOW_TEMPLATES, VARIABLE_FLOW_TEMPLATES } from './hostile-strings.js';

/** The hostile corpus: every string literal of this folder's test files that is a template with a placeholder (a `bash:` prefix removed). */
export function templatesOfTests(skip: readonly string[] = [], here = import.meta.dirname): string[] {
  const found = new Set<string>([...VARIABLE_FLOW_TEMPLATES, ...INTEGER_FLOW_TEMPLATES.map(([t]) => t)]);
  const literal = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.|\$(?!\{))*`/g;
  for (const file of readdirSync(here)) {
    if (!file.endsWith('.test.ts') || skip.includes(file)) continue;
    for (const [text] of readFileSync(join(here, file), 'utf8').matchAll(literal)) {
      let value: string;
      try {
        value = JSON.parse(
          text.startsWith('"')
            ? text
            : `"${text.slice(1, -1).replace(/"/g, '\\"').replace(/\\'/g, "'").replace(/\\`/g, '`')}"`,
        );
      } catch {
        continue;
      }
      const template = value.startsWith('bash:') ? value.slice(5) : value;
      try {
        // templates of the process tests wait for signals: their commands are covered by the others
        if (
          placeholderNames(parseTemplate(template, 'test')).length > 0 &&
          /[ ;|$]/.test(template) &&
          !/\bsleep\b/.test(template)
        )
          found.add(template);
      } catch {}
    }
  }
  return [...found];
}
