// The parser question of issue 28, on evidence: this package's hand-written scanner against web-tree-sitter +
// tree-sitter-bash, on the template grid, the hostile corpus of test/ and the bash: templates of the bundled and
// corpus skills, with real bash (xtrace) as the referee. Called by run.mjs after `pnpm build`.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = join(packageDir, '..', '..');
const require = createRequire(import.meta.url);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e6;

/** The test folder's data modules are TypeScript: transpiled to a scratch folder, `../src/` read from `dist/`. */
async function testModules(scratch) {
  const ts = require('typescript');
  const names = ['template-grid', 'hostile-strings', 'test-templates', 'bash-trace'];
  for (const name of names) {
    const source = readFileSync(join(packageDir, 'test', `${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const dist = pathToFileURL(join(packageDir, 'dist')).href;
    await writeFile(join(scratch, `${name}.js`), outputText.replaceAll("'../src/", `'${dist}/`));
  }
  const load = (name) => import(pathToFileURL(join(scratch, `${name}.js`)).href);
  const [grid, tests, trace] = await Promise.all(['template-grid', 'test-templates', 'bash-trace'].map(load));
  return { grid, tests, trace };
}

/** `entrypoint: bash:…` lines of every SKILL.md under `root`. */
function skillTemplates(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/^skill\.md$/i.test(entry.name)) {
        for (const [, t] of readFileSync(path, 'utf8').matchAll(/^\s*entrypoint:\s*bash:(.*)$/gm))
          found.push(t);
      }
    }
  };
  if (existsSync(root)) walk(root);
  return found;
}

/** The tree-sitter side: what an analysis built on its tree would start from. */
async function treeSitter() {
  const { Parser, Language } = await import('web-tree-sitter');
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  const unquote = (text) =>
    text
      .replace(/\\(.)/g, '$1')
      .replace(/^'(.*)'$/s, '$1')
      .replace(/^"(.*)"$/s, '$1');
  /** Command names of every `command` node, literal code of eval/trap/`sh -c` parsed again (as the scanner does). */
  const names = (text, depth = 0) => {
    const tree = parser.parse(text);
    const out = { error: tree.rootNode.hasError, names: [], dynamic: false };
    // `[ … ]`, `declare …` and `unset …` are nodes of their own: their first word is the builtin bash runs
    for (const node of tree.rootNode.descendantsOfType([
      'test_command',
      'declaration_command',
      'unset_command',
    ])) {
      const head = node.child(0)?.text;
      if (head && head !== '[[') out.names.push(head);
    }
    for (const command of tree.rootNode.descendantsOfType('command')) {
      const nameNode = command.childForFieldName('name');
      if (!nameNode) continue;
      const name = unquote(nameNode.text);
      if (/[$`]/.test(nameNode.text)) out.dynamic = true;
      out.names.push(name);
      const args = command.namedChildren.filter((n) => n.id !== nameNode.id);
      const code =
        name === 'eval' || name === 'trap'
          ? args[0]
          : /^(ba|da|z|k)?sh$/.test(name) && args[0]?.text === '-c'
            ? args[1]
            : undefined;
      if (code && code.type === 'raw_string' && depth < 4) {
        const inner = names(unquote(code.text), depth + 1);
        out.names.push(...inner.names);
        out.error ||= inner.error;
        out.dynamic ||= inner.dynamic;
      }
    }
    tree.delete();
    return out;
  };
  return { parser, names };
}

/** A command's name when it is literal text (not `$cmd`). */
const literalName = (command) => {
  const [first] = command.words;
  return first?.length === 1 && first[0].kind === 'literal'
    ? first[0].text
    : first?.length === 0
      ? ''
      : undefined;
};

/** A template as plain bash for a parser and for bash itself: each placeholder becomes the word VALUE. */
function asBash(template, parseTemplate) {
  return parseTemplate(template, 'bench')
    .map((part) => (part.kind === 'text' ? part.text : 'VALUE'))
    .join('');
}

function traced(shim, text, cwd, file) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text], {
      cwd,
      env: shim.env(file),
      stdio: ['ignore', 'ignore', 'ignore'],
      detached: true,
      timeout: 5000,
      killSignal: 'SIGKILL',
    });
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
}

/** Milliseconds from a fresh node process's start to the end of its first analysis, and its RSS growth (MB). */
function freshProcess(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out)));
  });
}

const FRESH = {
  none: `const rss = process.memoryUsage().rss; const t = performance.now();
console.log(JSON.stringify({ ms: performance.now() - t, mb: (process.memoryUsage().rss - rss) / 2 ** 20 }));`,
  scanner: `const rss = process.memoryUsage().rss; const t = performance.now();
const { checkEntrypoint } = await import('./dist/index.js');
checkEntrypoint('bash:echo {text}', { skillDir: '.' });
console.log(JSON.stringify({ ms: performance.now() - t, mb: (process.memoryUsage().rss - rss) / 2 ** 20 }));`,
  treeSitter: `const rss = process.memoryUsage().rss; const t = performance.now();
await import('./dist/index.js');
const { Parser, Language } = await import('web-tree-sitter');
await Parser.init();
const { createRequire } = await import('node:module');
const language = await Language.load(createRequire(process.cwd() + '/x').resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
const parser = new Parser(); parser.setLanguage(language); parser.parse('echo "$birdie_1"').delete();
console.log(JSON.stringify({ ms: performance.now() - t, mb: (process.memoryUsage().rss - rss) / 2 ** 20 }));`,
};

const linesOf = (files) => files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').length - 1, 0);

/** Rows of the comparison: [what, tree-sitter, scanner]. */
export async function parserComparison() {
  const scratch = await mkdtemp(join(tmpdir(), 'birdie-parser-bench-'));
  try {
    const { grid, tests, trace } = await testModules(scratch);
    const { inspectEntrypoint } = await import('../dist/index.js');
    const { simpleCommands } = await import('../dist/bash-simple-commands.js');
    const { parseTemplate } = await import('../dist/template.js');
    const ts = await treeSitter();
    const corpus = process.env.BIRDIE_CORPUS ?? join(repoRoot, '..', 'shared', 'corpus');
    const sets = {
      grid: grid.GRID_TEMPLATES.map((g) => g.template),
      hostile: [
        ...tests.templatesOfTests(['template-grid.test.ts'], join(packageDir, 'test')),
        // the edge cases of the earlier comparison: `\ #` is a word, `\`+newline joins lines, `${v:$o:2}`
        'git status \\ #{v}; touch F',
        'printf x \\ #{v}',
        'a\\\n#{v}; touch F',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash template
        'echo ${{v:$o:2}} {v}',
      ],
      skills: [
        ...new Set(
          [...skillTemplates(join(repoRoot, 'skills')), ...skillTemplates(corpus)].filter(
            (t) => t !== '{command}',
          ),
        ),
      ],
    };
    if (!existsSync(corpus)) sets.skills.push('(corpus missing: set BIRDIE_CORPUS)');

    const shim = await trace.traceShim(scratch);
    const rows = [];
    const work = join(scratch, 'work');
    let run = 0;
    for (const [set, templates] of Object.entries(sets)) {
      let scannerRefused = 0;
      let treeErrors = 0;
      let scannerMisses = 0;
      let treeMisses = 0;
      let treeDynamic = 0;
      let compared = 0;
      const queue = templates.map((template) => async () => {
        let text;
        try {
          text = asBash(template, parseTemplate);
        } catch {
          scannerRefused += 1; // a lone brace: not a template at all
          return;
        }
        const { problems } = inspectEntrypoint(`bash:${template}`, { skillDir: scratch });
        if (problems.length > 0) scannerRefused += 1;
        const tree = ts.names(text);
        if (tree.error) treeErrors += 1;
        if (tree.dynamic) treeDynamic += 1;
        let scanner;
        try {
          scanner = simpleCommands(template);
        } catch {
          scanner = undefined; // the scanner cannot read it (and refuses it): nothing to compare
        }
        const cwd = join(work, String(run));
        const file = join(scratch, `trace-${run++}`);
        await mkdir(cwd, { recursive: true });
        await traced(shim, text, cwd, file);
        const entries = await shim.read(file);
        const self = entries[0]?.pid;
        const ran = new Set(
          entries.filter((e) => e.pid === self && !e.compound && e.argv.length > 0).map((e) => e.argv[0]),
        );
        // compared where it matters: templates the scanner accepts (a refused one never runs)
        if (ran.size === 0 || problems.length > 0) return;
        compared += 1;
        // both readings are held to the same standard: every command name bash ran must be one they list
        const treeNames = new Set(tree.names);
        const treeMissed = [...ran].filter((name) => !treeNames.has(name));
        if (treeMissed.length > 0 && !tree.dynamic) treeMisses += 1;
        const scannerNames = new Set((scanner ?? []).map(literalName).filter((n) => n !== undefined));
        const scannerMissed = [...ran].filter((name) => !scannerNames.has(name));
        const scannerDynamic = (scanner ?? []).some(
          (c) => c.words.length > 0 && literalName(c) === undefined,
        );
        if (scanner && scannerMissed.length > 0 && !scannerDynamic) scannerMisses += 1;
        if (process.env.BENCH_VERBOSE) {
          if (treeMissed.length > 0)
            console.error(`tree-sitter missed ${JSON.stringify(treeMissed)} in ${JSON.stringify(template)}`);
          if (scanner && scannerMissed.length > 0)
            console.error(`scanner missed ${JSON.stringify(scannerMissed)} in ${JSON.stringify(template)}`);
        }
      });
      for (let k = 0; k < queue.length; k += 4) await Promise.all(queue.slice(k, k + 4).map((f) => f()));
      const n = templates.length;
      rows.push([
        `${set}: ${n} templates, refused (scanner) / parse errors (tree-sitter)`,
        `${treeErrors}`,
        `${scannerRefused}`,
      ]);
      rows.push([
        `${set}: accepted templates where bash ran a command the reading does not list (of ${compared} that ran)`,
        `${treeMisses} (+${treeDynamic} with a command name it cannot read)`,
        `${scannerMisses}`,
      ]);
    }

    // time per template, warm, interleaved: the scanner's whole load-time check against tree-sitter's parse + walk
    const all = sets.grid;
    const texts = all.map((t) => asBash(t, parseTemplate));
    const [scanMs, treeMs] = [[], []];
    for (let r = 0; r < 15; r++) {
      let t = now();
      for (const template of all) inspectEntrypoint(`bash:${template}`, { skillDir: scratch });
      scanMs.push(now() - t);
      t = now();
      for (const text of texts) ts.names(text);
      treeMs.push(now() - t);
    }
    const per = (xs) => `${((median(xs) / all.length) * 1000).toFixed(0)} µs`;
    rows.push([
      `time per grid template, warm (median of 15 rounds × ${all.length})`,
      `${per(treeMs)} (parse + command walk only; no checks)`,
      `${per(scanMs)} (the whole load-time check)`,
    ]);

    // a fresh process: importing this package and the first analysis, and the same plus tree-sitter's start-up
    const fresh = { none: [], scanner: [], treeSitter: [] };
    for (let r = 0; r < 7; r++)
      for (const key of Object.keys(fresh)) fresh[key].push(await freshProcess(FRESH[key]));
    const ms = (key) => median(fresh[key].map((x) => x.ms));
    const mb = (key) => median(fresh[key].map((x) => x.mb)) - median(fresh.none.map((x) => x.mb));
    rows.push([
      'first analysis in a fresh process (import + first check, median of 7)',
      `${ms('treeSitter').toFixed(0)} ms (+${(ms('treeSitter') - ms('scanner')).toFixed(0)} ms), +${mb('treeSitter').toFixed(0)} MB RSS`,
      `${ms('scanner').toFixed(0)} ms, +${mb('scanner').toFixed(0)} MB RSS`,
    ]);

    const scannerFiles = readdirSync(join(packageDir, 'src'))
      .filter((f) => /^bash-.*\.ts$/.test(f) && !f.endsWith('.test.ts'))
      .map((f) => join(packageDir, 'src', f));
    const wasm = statSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')).size;
    const runtime = statSync(join(dirname(require.resolve('web-tree-sitter')), 'tree-sitter.wasm')).size;
    rows.push([
      'code',
      `${(wasm / 2 ** 20).toFixed(1)} MB grammar + ${(runtime / 2 ** 10).toFixed(0)} KB runtime (WASM); the checks on top not written`,
      `${linesOf(scannerFiles)} lines in ${scannerFiles.length} bash-*.ts modules (checks included)`,
    ]);
    return rows;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
