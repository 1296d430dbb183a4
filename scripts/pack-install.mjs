#!/usr/bin/env node
// `pnpm test:packages`: every public package of the workspace, installed the way a user gets it. Each is packed with
// `pnpm pack` (workspace: ranges become versions) and installed with npm — not pnpm, so nothing leans on the
// workspace's hoisting — into a fresh temporary project, from the registry plus the packed tarballs only (a library
// gets the tarballs of the @birdie packages it depends on). Installs run one after another with one npm cache.
// Then each library runs its README's example (the first ```js block under `## Example`) and the output must equal the
// ```text block the README shows after it (and a strict TypeScript consumer importing each of its entries must
// type-check); the CLI must print its version, list its bundled skills from the package and
// answer a scripted `birdie run` with nothing on stderr but its closing session line.
//
//   node scripts/pack-install.mjs [NAME …]     only these packages (e.g. @birdie/skill-parser birdie)
//   --keep                                      keep the temporary folder (its path is printed)
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const ROOT_MANIFEST = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
/** Packages whose install scripts must run (a native addon). */
const ALLOW_SCRIPTS = ['better-sqlite3'];

async function workspacePackages() {
  const dirs = [
    ...(await readdir(join(ROOT, 'packages'))).map((name) => join(ROOT, 'packages', name)),
    join(ROOT, 'apps', 'cli'),
  ];
  const found = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    if (!manifest.private) found.push({ dir, manifest });
  }
  return found;
}

/**
 * The example of a README's `## Example(s)` section: the file a `<!-- pack-install: FILE NAME=value … -->` line names
 * (with that environment), else the first `examples/*.mjs` file the section links to (the real
 * code; a block beside it may abridge it), or else its first ```js block; and the output the section shows (its first
 * ```text block, after the ```js block when that is the example), or null.
 */
export function readmeExample(readme) {
  const lines = readme.split('\n');
  const heading = lines.findIndex((line) => /^## Examples?\s*$/.test(line));
  if (heading < 0) return null;
  const blocks = [];
  const prose = [];
  let open = null;
  for (const line of lines.slice(heading + 1)) {
    if (open) {
      if (/^```\s*$/.test(line)) {
        blocks.push(open);
        open = null;
      } else open.lines.push(line);
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    if (fence) open = { lang: fence[1], lines: [], at: blocks.length };
    else if (/^## /.test(line)) break;
    else prose.push({ line, before: blocks.length });
  }
  const jsIndex = blocks.findIndex((block) => block.lang === 'js');
  // A README may name the example and its environment outright: <!-- pack-install: examples/x.mjs NAME=value … -->
  const named = prose
    .map(({ line }) => /^<!-- pack-install: (\S+)((?: [A-Z_]+=\S+)*) -->$/.exec(line))
    .find(Boolean);
  if (named) {
    const env = Object.fromEntries(
      named[2]
        .trim()
        .split(' ')
        .filter(Boolean)
        .map((pair) => pair.split('=', 2)),
    );
    const text = blocks.find((block) => block.lang === 'text');
    return {
      file: named[1],
      env,
      output: text && blocks.every((b) => b.lang !== 'js') ? text.lines.join('\n') : null,
    };
  }
  const linked = prose.map(({ line }) => /\]\((examples\/[\w.-]+\.mjs)\)/.exec(line)?.[1]).find(Boolean);
  const example = linked
    ? { file: linked }
    : jsIndex >= 0
      ? { code: blocks[jsIndex].lines.join('\n') }
      : null;
  if (!example) return null;
  const text = blocks.slice(example.code ? jsIndex + 1 : 0).find((block) => block.lang === 'text');
  return { ...example, output: text ? text.lines.join('\n') : null };
}

// Only what differs from run to run is set aside: trailing spaces and a tool's measured duration.
const normalise = (text) =>
  text
    .replace(/"durationMs":\d+/g, '"durationMs":…')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();

async function run(command, args, options) {
  try {
    const { stdout, stderr } = await exec(command, args, { maxBuffer: 64 * 1024 * 1024, ...options });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? String(error) };
  }
}

function internalDeps(manifest, byName, seen = new Set()) {
  for (const name of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const dep = byName.get(name);
    if (!dep || seen.has(name)) continue;
    seen.add(name);
    internalDeps(dep.manifest, byName, seen);
  }
  return seen;
}

/** The packages of the workspace and what they need from it, as a user who installs them by name would get them. */
function withInternalDeps(names, byName) {
  const all = new Set(names);
  for (const name of names) for (const dep of internalDeps(byName.get(name).manifest, byName)) all.add(dep);
  return all;
}

/** The other @birdie packages a README example imports (a user copying it installs them too). */
async function exampleImports(pkg) {
  const readme = await readFile(join(pkg.dir, 'README.md'), 'utf8').catch(() => '');
  const example = readmeExample(readme);
  if (!example) return [];
  const code = example.code ?? (await readFile(join(pkg.dir, example.file), 'utf8'));
  const names = [...code.matchAll(/from '(@birdie\/[\w-]+)/g)].map((match) => match[1]);
  // Private workspace packages (the test helpers) are not published: a user cannot install them, so they are not.
  const published = new Set((await workspacePackages()).map((found) => found.manifest.name));
  return [...new Set(names)].filter((name) => name !== pkg.manifest.name && published.has(name));
}

async function npmInstall(project, specs, env) {
  const result = await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
    cwd: project,
    env,
  });
  if (result.code !== 0) throw new Error(`npm install failed:\n${result.stderr}`);
}

/**
 * A strict TypeScript consumer of every entry the package exports (`node16` resolution, no `skipLibCheck`): the
 * published declarations must type-check with what installing the package brings, and nothing else but @types/node.
 */
async function typeCheckConsumer(pkg, project) {
  const entries = Object.keys(pkg.manifest.exports ?? { '.': null })
    .filter((key) => key !== './package.json' && !key.includes('*'))
    .map((key) => pkg.manifest.name + key.slice(1));
  const code = entries.map((entry, i) => `import * as entry${i} from '${entry}';\nconsole.log(entry${i});\n`);
  await writeFile(join(project, 'consumer.ts'), code.join(''));
  const compilerOptions = {
    target: 'es2022',
    module: 'node16',
    moduleResolution: 'node16',
    strict: true,
    noEmit: true,
    types: ['node'],
  };
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
  );
  const result = await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
    cwd: project,
  });
  return result.code === 0
    ? null
    : `its types fail a strict TypeScript consumer:\n${result.stdout}${result.stderr}`;
}

async function checkLibrary(pkg, project) {
  const typeProblem = await typeCheckConsumer(pkg, project);
  if (typeProblem) return { ok: false, detail: typeProblem };
  const readme = await readFile(join(pkg.dir, 'README.md'), 'utf8').catch(() => '');
  const example = readmeExample(readme);
  if (!example) return { ok: false, detail: 'no example under "## Example" in its README' };
  // A linked example runs from a copy of the package's examples/ folder (it may read files next to it).
  if (example.file) await cp(join(pkg.dir, 'examples'), join(project, 'examples'), { recursive: true });
  else await writeFile(join(project, 'example.mjs'), example.code);
  // An environment value naming a file of the package (a scripted model's replies) points at a copy of it.
  const env = { ...process.env };
  for (const [key, value] of Object.entries(example.env ?? {})) {
    env[key] = existsSync(join(pkg.dir, value)) ? join(project, value) : value;
    if (existsSync(join(pkg.dir, value)))
      await cp(join(pkg.dir, value), join(project, value), { recursive: true });
  }
  // An example that takes a database from BIRDIE_DATABASE_URL gets a throw-away PostgreSQL server (the repository's
  // test helper, as its tests use), since what it would otherwise import to start one is not published.
  const code = example.code ?? (await readFile(join(pkg.dir, example.file), 'utf8'));
  const database =
    code.includes('BIRDIE_DATABASE_URL') && !env.BIRDIE_DATABASE_URL
      ? await (await import(join(ROOT, 'packages', 'test-utils', 'dist', 'index.js'))).startPostgres()
      : undefined;
  if (database) env.BIRDIE_DATABASE_URL = database.url;
  const result = await run(process.execPath, [example.file ?? 'example.mjs'], {
    env,
    cwd: project,
    timeout: 300_000,
  }).finally(() => database?.stop());
  if (result.code !== 0)
    return { ok: false, detail: `the README example exited ${result.code}:\n${result.stderr}` };
  if (example.output === null) return { ok: true, detail: 'README example ran (it shows no output)' };
  if (normalise(result.stdout) !== normalise(example.output)) {
    return {
      ok: false,
      detail: `the README example printed something else:\n--- README\n${example.output}\n--- printed\n${result.stdout}`,
    };
  }
  return { ok: true, detail: 'README example printed what the README shows' };
}

async function checkCli(pkg, project) {
  const bin = join(project, 'node_modules', '.bin', 'birdie');
  const home = join(project, 'home');
  await mkdir(join(home, '.birdie'), { recursive: true });
  await copyFile(join(pkg.dir, 'examples', 'hello.json'), join(project, 'hello.json'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    BIRDIE_HOME: join(home, '.birdie'),
    NO_COLOR: '1',
    LLM_VENDOR: 'scripted',
    LLM_SCRIPT: join(project, 'hello.json'),
  };
  const problems = [];
  const version = await run(bin, ['--version'], { cwd: project, env });
  if (!version.stdout.includes(pkg.manifest.version))
    problems.push(`--version printed ${version.stdout.trim()}`);
  const list = await run(bin, ['skills', 'list'], { cwd: project, env });
  for (const name of ['filesystem', 'shell', 'todo']) {
    if (!new RegExp(`^${name} .* bundled `, 'm').test(list.stdout))
      problems.push(`skills list lacks bundled ${name}`);
  }
  const answer = await run(bin, ['run', 'hello'], { cwd: project, env });
  const stray = answer.stderr.split('\n').filter((line) => line && !line.startsWith('session '));
  if (answer.code !== 0 || stray.length > 0)
    problems.push(`birdie run: exit ${answer.code}, stderr:\n${answer.stderr}`);
  return problems.length === 0
    ? { ok: true, detail: `${version.stdout.trim()}; bundled skills listed; scripted run, clean stderr` }
    : { ok: false, detail: problems.join('\n') };
}

async function main() {
  const started = performance.now();
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const only = args.filter((arg) => arg !== '--keep');
  const all = await workspacePackages();
  const byName = new Map(all.map((pkg) => [pkg.manifest.name, pkg]));
  const chosen = only.length > 0 ? all.filter((pkg) => only.includes(pkg.manifest.name)) : all;
  const tmp = await mkdtemp(join(tmpdir(), 'birdie-pack-install-'));
  const tarballs = join(tmp, 'tarballs');
  await mkdir(tarballs);
  const tarballOf = new Map();
  const needed = new Set();
  for (const pkg of chosen) {
    for (const dep of withInternalDeps([pkg.manifest.name, ...(await exampleImports(pkg))], byName))
      needed.add(dep);
  }
  for (const name of needed) {
    const { stdout } = await exec('pnpm', ['pack', '--pack-destination', tarballs], {
      cwd: byName.get(name).dir,
    });
    tarballOf.set(name, stdout.trim().split('\n').at(-1));
  }
  const env = { ...process.env, npm_config_update_notifier: 'false' };
  let failed = 0;
  for (const pkg of chosen) {
    const name = pkg.manifest.name;
    const project = join(tmp, name.replace('@', '').replace('/', '-'));
    await mkdir(project);
    const allowScripts = Object.fromEntries(ALLOW_SCRIPTS.map((dep) => [dep, true]));
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'try-it', private: true, type: 'module', allowScripts }, null, 2)}\n`,
    );
    const at = performance.now();
    let result;
    try {
      const specs = [...withInternalDeps([name, ...(await exampleImports(pkg))], byName)].map((dep) =>
        tarballOf.get(dep),
      );
      // @types/node as the workspace has it: what a TypeScript consumer adds for Node's own modules.
      await npmInstall(
        project,
        [...specs, `@types/node@${ROOT_MANIFEST.devDependencies['@types/node']}`],
        env,
      );
      result = name === 'birdie' ? await checkCli(pkg, project) : await checkLibrary(pkg, project);
    } catch (error) {
      result = { ok: false, detail: error.message };
    }
    const seconds = ((performance.now() - at) / 1000).toFixed(0);
    console.log(`${result.ok ? '✓' : '✗'} ${name} (${seconds} s): ${result.detail}`);
    if (!result.ok) failed++;
  }
  if (keep) console.log(`kept ${tmp}`);
  else await rm(tmp, { recursive: true, force: true });
  const total = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`${chosen.length - failed}/${chosen.length} packages installed alone and ran, in ${total} s`);
  if (failed > 0) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
