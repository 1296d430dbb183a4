import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleCommands } from '../src/bash-simple-commands.js';
import { inspectEntrypoint, isEntrypointError, resolveEntrypoint } from '../src/index.js';
import { type TraceShim, traceShim, unseenCommands } from './bash-trace.js';
import { budgetFor, inBatches, tempDir } from './helpers.js';
import { EVIL_PROGRAMS, GRID_MARKER, GRID_TEMPLATES, gridValues } from './template-grid.js';

/**
 * Issue 28's acceptance: every grid template that loads without an error is run through the real `bash:` entrypoint
 * with every hostile value, each run in a fresh folder; none may create the marker, except templates that carry the
 * code-taking-program warning (they ask for approval).
 */

type Outcome = 'refused at load' | 'accepted safe' | 'accepted with warning' | 'executing';

interface Row {
  kind: string;
  template: string;
  outcome: Outcome;
  /** Values that created the marker. */
  executed: string[];
  /** Values refused when the tool ran (`bad-argument`), before anything started. */
  refusedAtRun: number;
}

const VALUE_COUNT = gridValues('/x').length;
const RUNS = GRID_TEMPLATES.length * VALUE_COUNT;
const rows: Row[] = [];
let dir: string;
let values: string[];
let shim: TraceShim;
/** Commands bash ran in the template's own shell that the analysis does not list (the differential test). */
const unseen: string[] = [];
let childCommands = 0;
let traced = 0;

beforeAll(async () => {
  dir = await tempDir('birdie-grid-');
  const evil = join(dir, 'evil');
  await mkdir(evil);
  for (const name of EVIL_PROGRAMS) {
    await writeFile(join(evil, name), `#!/bin/sh\ntouch ${GRID_MARKER}\n`);
    await chmod(join(evil, name), 0o755);
  }
  values = gridValues(evil);
  shim = await traceShim(dir);
  await mkdir(join(dir, 'traces'));
});

afterAll(() => {
  const count = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
  const lines = [
    `template grid: ${rows.length} templates × ${VALUE_COUNT} values:`,
    `  refused at load ${count('refused at load')}, accepted safe ${count('accepted safe')},`,
    `  accepted with the code-taking warning ${count('accepted with warning')} (${rows.filter((r) => r.outcome === 'accepted with warning' && r.executed.length > 0).length} of them execute a value),`,
    `  executing ${count('executing')}; values refused when run: ${rows.reduce((n, r) => n + r.refusedAtRun, 0)}`,
    `differential: ${traced} traced runs, ${unseen.length} commands the analysis did not list, ${childCommands} commands in child shells`,
    ...rows
      .filter((r) => r.executed.length > 0)
      .map(
        (r) =>
          `  ${r.outcome === 'executing' ? 'EXECUTES' : 'warned  '} ${JSON.stringify(r.template)} (${r.executed.length} values)`,
      ),
  ];
  console.info(lines.join('\n'));
});

describe(`the template grid (${GRID_TEMPLATES.length} templates × ${VALUE_COUNT} hostile values, real bash)`, () => {
  it('has the size and spread of issue 28, one placeholder each, and no duplicates', () => {
    expect(GRID_TEMPLATES.length).toBeGreaterThanOrEqual(175);
    expect(VALUE_COUNT).toBeGreaterThanOrEqual(16);
    expect(VALUE_COUNT).toBeLessThanOrEqual(19);
    expect(new Set(GRID_TEMPLATES.map((g) => g.template)).size).toBe(GRID_TEMPLATES.length);
    for (const { template } of GRID_TEMPLATES)
      expect(template.match(/(?<!\{)\{v\}/g)?.length ?? 0).toBeGreaterThan(0);
  });

  it('would notice an executed value: a template that runs its value creates the marker', async () => {
    const raw = resolveEntrypoint('bash:{command}', { skillDir: dir });
    const work = join(dir, 'control');
    await mkdir(work);
    await raw.run({ command: values[0]! }, { cwd: work });
    expect(existsSync(join(work, GRID_MARKER))).toBe(true);
  });

  it('no template that loads without an error executes a value, unless it carries the code-taking warning', {
    timeout: budgetFor(RUNS, 300),
  }, async () => {
    let runIndex = 0;
    for (const { kind, template } of GRID_TEMPLATES) {
      const entrypoint = `bash:${template}`;
      const context = { skillDir: dir };
      const { problems, warnings } = inspectEntrypoint(entrypoint, context);
      if (problems.length > 0) {
        rows.push({ kind, template, outcome: 'refused at load', executed: [], refusedAtRun: 0 });
        continue;
      }
      const tool = resolveEntrypoint(entrypoint, context);
      const commands = simpleCommands(template);
      const executed: string[] = [];
      let refusedAtRun = 0;
      await inBatches(values, 6, async (v) => {
        const index = runIndex++;
        const work = join(dir, `run-${index}`);
        const trace = join(dir, 'traces', String(index));
        await mkdir(work);
        try {
          await tool.run({ v }, { cwd: work, env: shim.env(trace), timeoutMs: 20_000, maxOutputBytes: 4096 });
        } catch (error) {
          if (!isEntrypointError(error)) throw error;
          if (error.code === 'bad-argument') refusedAtRun += 1;
        }
        if (existsSync(join(work, GRID_MARKER))) executed.push(v);
        const seen = unseenCommands(commands, await shim.read(trace));
        if (seen.traced > 0) traced += 1;
        childCommands += seen.childCommands;
        for (const argv of seen.unseen)
          unseen.push(`${template}  ⟵  ${JSON.stringify(v)} ran ${JSON.stringify(argv)}`);
      });
      // the code-taking-program warning (issue 28.3): such a tool asks for approval unless it says `approval: never`
      const warned = warnings.length > 0;
      const outcome: Outcome = warned
        ? 'accepted with warning'
        : executed.length > 0
          ? 'executing'
          : 'accepted safe';
      rows.push({ kind, template, outcome, executed, refusedAtRun });
    }
    const executing = rows.filter((r) => r.outcome === 'executing');
    expect(
      executing.map((r) => `${r.template}  ⟵  ${r.executed.map((v) => JSON.stringify(v)).join(', ')}`),
    ).toEqual([]);
  });
});

describe('the differential test over the grid: what bash runs is what the analysis saw', () => {
  it("every command the template's own shell ran (bash xtrace) is one of the simple commands the analysis lists", () => {
    expect(rows.length, 'the grid ran first').toBe(GRID_TEMPLATES.length);
    expect(traced, 'the trace shim saw the runs').toBeGreaterThan(0);
    expect(unseen).toEqual([]);
  });
});
