// Median overhead of entrypoint calls against bare baselines measured in the same run.
// Run after `pnpm build`: `pnpm bench`. Prints a Markdown table.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findExecutable } from '../dist/executable.js';
import {
  checkEntrypoint,
  configureProcessGuard,
  processGuardStatus,
  resolveEntrypoint,
  sandboxStatus,
} from '../dist/index.js';
import { prepareSandbox } from '../dist/sandbox-layout.js';
import { parseTemplate } from '../dist/template.js';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e6;

function bareSpawn(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** Alternates the runs so load changes on a shared machine hit all of them alike; returns their medians. */
async function interleaved(rounds, ...runs) {
  const times = runs.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, run] of runs.entries()) {
      const t = now();
      await run();
      times[k].push(now() - t);
    }
  }
  return times.map(median);
}

const paired = (rounds, baseline, candidate) => interleaved(rounds, baseline, candidate);

const dir = await mkdtemp(join(tmpdir(), 'birdie-bench-'));
const rows = [];
try {
  // bash: the same command three ways: a bare spawn, the entrypoint without the process guard, and with it
  const ep = resolveEntrypoint('bash:echo {x}', { skillDir: dir });
  // the exact script the template compiles to
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax
  const script = ['-c', 'echo "${1}"', 'birdie', 'hello'];
  configureProcessGuard('auto');
  const guard = await processGuardStatus();
  if (!guard.active) throw new Error(`the process guard is not active here: ${guard.reason}`);
  const run = (mode, options) => async () => {
    configureProcessGuard(mode); // cheap: what the machine allows was checked once, above
    await ep.run({ x: 'hello' }, options);
  };
  // a listener as an application gives it (RunOptions.onOutput): the output is decoded a second time, as it arrives
  let heard = 0;
  const listening = { onOutput: (chunk) => (heard += chunk.text.length) };
  for (let i = 0; i < 10; i++) await Promise.all([run('off')(), bareSpawn(script)]);
  for (let i = 0; i < 10; i++) await run('auto')();
  const [spawnMs, bashMs, guardedMs, liveMs] = await interleaved(
    150,
    () => bareSpawn(script),
    run('off'),
    run('auto'),
    run('off', listening),
  );
  if (heard === 0) throw new Error('the output listener was never called');
  configureProcessGuard(undefined);
  rows.push(['bare spawn of the same bash -c', 'itself', spawnMs, spawnMs, '1.00×', '—', true]);
  rows.push([
    'bash:echo {x}, guard off',
    'child_process.spawn',
    spawnMs,
    bashMs,
    `${(bashMs / spawnMs).toFixed(2)}×`,
    '≤ 1.3×',
    bashMs / spawnMs <= 1.3,
  ]);
  rows.push([
    'bash:echo {x}, guard off, onOutput listener',
    'child_process.spawn',
    spawnMs,
    liveMs,
    `${(liveMs / spawnMs).toFixed(2)}×`,
    '≤ 1.3×',
    liveMs / spawnMs <= 1.3,
  ]);
  rows.push([
    'bash:echo {x}, guard on',
    'child_process.spawn',
    spawnMs,
    guardedMs,
    `${(guardedMs / spawnMs).toFixed(2)}× (+${(guardedMs - spawnMs).toFixed(2)} ms)`,
    '≤ 3× (+5 ms at a 2.5 ms spawn)',
    guardedMs / spawnMs <= 3,
  ]);

  // the same bash: call in the sandbox, against the same bare spawn and against a bare spawn of bubblewrap with the
  // very arguments the entrypoint gives it (the floor of any sandboxed call: namespaces and mounts), interleaved
  const sandbox = await sandboxStatus();
  if (!sandbox.available) throw new Error(`bubblewrap is not usable here: ${sandbox.reason}`);
  const boxed = resolveEntrypoint('bash:echo {x}', { skillDir: dir, settings: { sandbox: true } });
  const layout = prepareSandbox({
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    network: false,
    skillDir: dir,
  });
  const bwrapArgs = [...layout.args, '--', findExecutable('bash', process.env.PATH ?? ''), ...script];
  const bareBwrap = () =>
    new Promise((resolve, reject) => {
      const child = spawn(sandbox.bwrap, bwrapArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      child.stdout.resume();
      child.on('error', reject);
      child.on('close', resolve);
    });
  const runBoxed = (mode) => async () => {
    configureProcessGuard(mode);
    await boxed.run({ x: 'hello' });
  };
  // In a folder of its own, where no other call holds the stand-ins of the absent protected paths (.git, .envrc, …):
  // each call makes them, and removes them once its sandbox is gone (what a lone call pays).
  const fresh = await mkdtemp(join(tmpdir(), 'birdie-bench-fresh-'));
  const boxedFresh = resolveEntrypoint('bash:echo {x}', { skillDir: fresh, settings: { sandbox: true } });
  const runFresh = async () => {
    configureProcessGuard('off');
    await boxedFresh.run({ x: 'hello' }, { cwd: fresh });
  };
  for (let i = 0; i < 10; i++) await Promise.all([runBoxed('auto')(), bareBwrap()]);
  const [spawnMs2, floorMs, guardedMs2, boxedOffMs, boxedMs, freshMs] = await interleaved(
    100,
    () => bareSpawn(script),
    bareBwrap,
    run('auto'),
    runBoxed('off'),
    runBoxed('auto'),
    runFresh,
  );
  configureProcessGuard(undefined);
  layout.release();
  await rm(fresh, { recursive: true, force: true });
  // what the guard costs a plain call in this same run: the sandbox under the guard should cost no more than both
  const guardCost = Math.max(0, guardedMs2 - spawnMs2);
  const over = (x) => `${(x / spawnMs2).toFixed(2)}× (+${(x - spawnMs2).toFixed(2)} ms)`;
  rows.push([
    'bare spawn of bwrap (same arguments) + bash -c',
    'child_process.spawn',
    spawnMs2,
    floorMs,
    over(floorMs),
    '—',
    true,
  ]);
  rows.push([
    'bash:echo {x}, sandboxed, guard off',
    'child_process.spawn',
    spawnMs2,
    boxedOffMs,
    over(boxedOffMs),
    `≤ 1.3× the bare bwrap spawn (${(1.3 * floorMs).toFixed(1)} ms)`,
    boxedOffMs <= 1.3 * floorMs,
  ]);
  rows.push([
    'bash:echo {x}, sandboxed, guard on',
    'child_process.spawn',
    spawnMs2,
    boxedMs,
    over(boxedMs),
    `≤ 1.3× (bare bwrap + the guard's cost, +${guardCost.toFixed(1)} ms here) = ${(1.3 * (floorMs + guardCost)).toFixed(1)} ms`,
    boxedMs <= 1.3 * (floorMs + guardCost),
  ]);

  rows.push([
    'bash:echo {x}, sandboxed, guard off, a folder of its own',
    'child_process.spawn',
    spawnMs2,
    freshMs,
    over(freshMs),
    `— (the stand-ins, and the wait for the sandbox's end: +${(freshMs - boxedOffMs).toFixed(1)} ms over the row above)`,
    true,
  ]);

  // node: a direct call of the same function
  await writeFile(join(dir, 'tool.mjs'), 'export function add({ a, b }) { return { sum: a + b }; }\n');
  const { add } = await import(pathToFileURL(join(dir, 'tool.mjs')).href);
  const nodeEp = resolveEntrypoint('node:tool.mjs#add', { skillDir: dir });
  await nodeEp.run({ a: 1, b: 2 }); // first import, not measured
  const batch = 2_000;
  const signal = new AbortController().signal;
  const [directMs, nodeMs] = await paired(
    30,
    async () => {
      for (let i = 0; i < batch; i++) JSON.stringify(await add({ a: i, b: 1 }, { signal }), null, 2);
    },
    async () => {
      for (let i = 0; i < batch; i++) await nodeEp.run({ a: i, b: 1 });
    },
  );
  const overhead = (nodeMs - directMs) / batch;
  rows.push([
    'node:tool.mjs#add',
    'direct call + JSON.stringify',
    directMs / batch,
    nodeMs / batch,
    `${overhead >= 0 ? '+' : ''}${overhead.toFixed(4)} ms`,
    '≤ 0.2 ms',
    overhead <= 0.2,
  ]);

  // node: under the sandbox (a tool of a folder other than the application's own): a bubblewrap child per call,
  // against the same call in-process and against a bare spawn of bubblewrap + node importing the same module
  const boxedNode = resolveEntrypoint('node:tool.mjs#add', { skillDir: dir, settings: { sandbox: true } });
  const importAdd = `import(${JSON.stringify(pathToFileURL(join(dir, 'tool.mjs')).href)}).then((m) => process.stdout.write(JSON.stringify(m.add({ a: 1, b: 2 }))))`;
  // a layout of its own: the bash rows' layout released its placeholders, and bubblewrap would fail at once on them
  const nodeLayout = prepareSandbox({
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    network: false,
    skillDir: dir,
  });
  const nodeBwrapArgs = [...nodeLayout.args, '--', process.execPath, '--input-type=module', '-e', importAdd];
  const bareNodeBwrap = () =>
    new Promise((resolve, reject) => {
      const child = spawn(sandbox.bwrap, nodeBwrapArgs, {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      child.stdout.resume();
      child.on('error', reject);
      // a floor that fails fast would make any entrypoint look slow: it must run the tool
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`the bare bwrap + node spawn exited with ${code}`)),
      );
    });
  const runBoxedNode = (mode) => async () => {
    configureProcessGuard(mode);
    const result = await boxedNode.run({ a: 1, b: 2 });
    if (!result.output.includes('"sum": 3')) throw new Error(`unexpected output: ${result.output}`);
  };
  for (let i = 0; i < 5; i++) await Promise.all([runBoxedNode('off')(), bareNodeBwrap()]);
  const [inProcessMs, nodeFloorMs, boxedNodeOffMs, boxedNodeMs] = await interleaved(
    30,
    () => nodeEp.run({ a: 1, b: 2 }),
    bareNodeBwrap,
    runBoxedNode('off'),
    runBoxedNode('auto'),
  );
  configureProcessGuard(undefined);
  const overNode = (x) => `+${(x - inProcessMs).toFixed(1)} ms over in-process`;
  rows.push([
    'bare spawn of bwrap (same arguments) + node importing tool.mjs',
    'node:tool.mjs#add in-process',
    inProcessMs,
    nodeFloorMs,
    overNode(nodeFloorMs),
    '—',
    true,
  ]);
  rows.push([
    'node:tool.mjs#add, sandboxed child, guard off',
    'node:tool.mjs#add in-process',
    inProcessMs,
    boxedNodeOffMs,
    `${overNode(boxedNodeOffMs)}; ${(boxedNodeOffMs / nodeFloorMs).toFixed(2)}× the bare bwrap + node spawn`,
    '≤ 1.3× the bare bwrap + node spawn',
    boxedNodeOffMs <= 1.3 * nodeFloorMs,
  ]);
  rows.push([
    'node:tool.mjs#add, sandboxed child, guard on',
    'node:tool.mjs#add in-process',
    inProcessMs,
    boxedNodeMs,
    overNode(boxedNodeMs),
    '—',
    true,
  ]);

  // http: informational, against fetch of the same local URL
  const server = createServer((_req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${server.address().port}/items/1`;
  const httpEp = resolveEntrypoint(`http:get http://127.0.0.1:${server.address().port}/items/{id}`, {
    skillDir: dir,
  });
  for (let i = 0; i < 20; i++) await httpEp.run({ id: 1 });
  const [fetchMs, httpMs] = await paired(
    200,
    async () => (await fetch(url)).text(),
    () => httpEp.run({ id: 1 }),
  );
  server.close();
  rows.push([
    'http:get …/items/{id}',
    'fetch().text()',
    fetchMs,
    httpMs,
    `${(httpMs / fetchMs).toFixed(2)}×`,
    '—',
    true,
  ]);

  // checkEntrypoint: what the load-time check costs per bash tool, against the brace parsing alone
  const templates = [
    'cat {path}',
    'ls -la -- {path}',
    'echo "{content}" > {path}',
    'mkdir -p -- {path}',
    'git -C {repo} log --oneline -n 20 -- {file} | head -50',
    'grep -rn -- {pattern} {dir} | head -n 100',
    'for f in {a} {b}; do printf "[%s]" "$f"; done',
    'f() {{ local x="$1"; printf "%s" "$x"; }}; f {v}',
    'cat <<EOF\n{x} "{y}"\nEOF\necho {z}',
    'n={n}; echo $(( n + 1 ))',
    'x={v}; case $x in a*) echo A;; *) echo B;; esac',
    'tmp=$(mktemp); trap \'rm -f "$tmp"\' EXIT; curl -s -- {url} > "$tmp"; wc -c < "$tmp"',
  ];
  const names = [
    'path',
    'content',
    'repo',
    'file',
    'pattern',
    'dir',
    'a',
    'b',
    'v',
    'x',
    'y',
    'z',
    'n',
    'url',
  ];
  const schema = {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
  };
  const context = { skillDir: dir, schema };
  const rounds = 200;
  const [parseMs, checkMs] = await paired(
    30,
    async () => {
      for (let i = 0; i < rounds; i++) for (const t of templates) parseTemplate(t, 'bench');
    },
    async () => {
      for (let i = 0; i < rounds; i++) for (const t of templates) checkEntrypoint(`bash:${t}`, context);
    },
  );
  const per = (x) => (x / rounds / templates.length) * 1000; // µs per template
  rows.push([
    `checkEntrypoint, ${templates.length} bash templates`,
    'parseTemplate (µs per template)',
    per(parseMs) / 1000,
    per(checkMs) / 1000,
    `${per(checkMs).toFixed(1)} µs per template`,
    '—',
    true,
  ]);
} finally {
  await rm(dir, { recursive: true, force: true });
}

const ms = (x) => (x < 0.1 ? x.toFixed(4) : x.toFixed(2));
console.log(
  '| entrypoint | baseline | baseline median (ms) | entrypoint median (ms) | ratio / overhead | target | met |',
);
console.log('|---|---|---:|---:|---:|---|---|');
for (const [name, base, b, c, ratio, target, ok] of rows) {
  console.log(
    `| \`${name}\` | ${base} | ${ms(b)} | ${ms(c)} | ${ratio} | ${target} | ${ok ? 'yes' : 'no'} |`,
  );
}

// the parser question (issue 28): the scanner against web-tree-sitter + tree-sitter-bash, real bash as the referee
const { parserComparison } = await import('./parser.mjs');
const versions = ['web-tree-sitter', 'tree-sitter-bash'].map(
  (name) =>
    `\`${name}\` ${JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url))).version}`,
);
console.log(`\n| | ${versions.join(' + ')} | this scanner |`);
console.log('|---|---|---|');
for (const [what, tree, scanner] of await parserComparison())
  console.log(`| ${what} | ${tree} | ${scanner} |`);
