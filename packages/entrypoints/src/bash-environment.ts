import { describeTaint, type Problem } from './bash-findings.js';
import { type AssignmentSite, type Flow, isTainted } from './bash-flow.js';
import { dataOnlyNames, environmentNameProblem } from './env-name-policy.js';

/**
 * The assignments through which a value reaches a name that bash acts on or a child reads from its environment
 * (`PATH={v} ls`, `x={v}; export PATH="$x"`, `read -r PATH`, `env GIT_EXTERNAL_DIFF={v} git diff`): one problem at
 * each, unless env-name-policy.ts allows the name. Run once the flow of values is solved.
 */
export function environmentProblems(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  for (const site of flow.sites) {
    const why = siteProblem(flow, site);
    if (!why) continue;
    const taint = site.input ? flow.valueOf(site.name) : flow.taintOf(site.atoms, false);
    if (!isTainted(taint) && !taint.output) continue;
    problems.push({
      message: `${describeTaint(taint)} reaches the variable ${why}: a value there chooses what runs. Only data-only names (${dataOnlyNames()}) may take a value; keep it in a lower-case variable the template does not export`,
      offset: site.offset,
    });
  }
  return problems;
}

/** Why a value may not be assigned where `site` assigns (the variable's name leads the text), or undefined. */
function siteProblem(flow: Flow, site: AssignmentSite): string | undefined {
  const exported = (name: string) => site.exported || flow.allExport || flow.exported.has(name);
  if (site.name === '') return 'that $\u007B!…:=…} names at run time, which may be PATH or any other name';
  const target = flow.namerefs.get(site.name);
  if (target === null) return `that the nameref ${site.name} points to, which may be PATH or any other name`;
  const name = target ?? site.name;
  const why = environmentNameProblem({ name, exported: exported(name) });
  if (!why) return undefined;
  return target === undefined
    ? `${name}, and ${why}`
    : `${name} (through the nameref ${site.name}), and ${why}`;
}
