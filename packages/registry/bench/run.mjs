// Registry benchmark: 1,000 skills × 10 triggers. Prints a Markdown table; every target is compared with a
// baseline measured in the same run. Run after `pnpm build` (imports ../dist).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { discoverAgents, discoverSkills } from '@birdie/skill-parser';
import { loadRegistry, SkillPolicy } from '../dist/index.js';
import { TriggerMatcher } from '../dist/trigger-matcher.js';
import { makeMessage, rng, writeAgents, writeSkills } from './generate.mjs';

const SKILLS = 1000;
const AGENTS = 50;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Median wall and CPU time of `fn` in ms, after `warmup` untimed runs; batches calls that are too quick to time
 * alone. CPU time (this process, all threads) is shown too because the machine is shared: wall time then includes
 * waiting for a core.
 */
async function time(fn, { runs = 50, warmup = 5, batch = 1 } = {}) {
  const call = async () => {
    const result = fn();
    if (result && typeof result.then === 'function') await result;
  };
  for (let i = 0; i < warmup; i++) await call();
  const wall = [];
  const cpu = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    if (batch === 1) await call();
    else for (let b = 0; b < batch; b++) fn(); // synchronous calls only, so no await skews the figure
    const used = process.cpuUsage(startCpu);
    wall.push((performance.now() - start) / batch);
    cpu.push((used.user + used.system) / 1000 / batch);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/**
 * The obvious implementation the automaton replaces: every trigger of every allowed skill, one `includes` each
 * (a lookaround RegExp for short triggers, so both give the same answer).
 */
function naiveMatch(skills, message, allowed) {
  const text = message.toLowerCase();
  return skills.filter(
    (skill) =>
      allowed.has(skill.name) &&
      skill.body !== null &&
      !skill.alwaysInject &&
      skill.triggers.some((t) => {
        const trigger = t.toLowerCase();
        if (trigger.length > 3) return text.includes(trigger);
        const escaped = trigger.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(text);
      }),
  );
}

/** One alternation RegExp over all triggers, longest first (the other "compiled" option). */
function buildRegex(skills) {
  const owners = new Map();
  for (const skill of skills) for (const t of skill.triggers) owners.set(t.toLowerCase(), skill);
  const escaped = [...owners.keys()]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { regex: new RegExp(escaped.join('|'), 'gi'), owners };
}

function regexMatch({ regex, owners }, message) {
  const found = new Set();
  for (const match of message.matchAll(regex)) found.add(owners.get(match[0].toLowerCase()));
  return found;
}

const root = await mkdtemp(join(tmpdir(), 'birdie-registry-bench-'));
try {
  await writeSkills(join(root, 'skills'), SKILLS);
  await writeAgents(join(root, 'agents'), AGENTS, SKILLS);
  const dir = join(root, 'skills');
  const rows = [];
  const row = (what, value, baselineName, baseline, target) =>
    rows.push({ what, value, baselineName, baseline, target });

  // Reload vs parsing alone. Both alternate so disk cache and JIT state are shared fairly. The registry has the
  // standard (here empty) agents folders, as the CLI's does; a second one also has a folder of agents, checked against
  // the skills at every reload, and is compared with parsing the skills and the agents.
  const agentsDir = join(root, 'agents');
  const emptyAgents = { path: join(root, 'no-such-home', '.birdie', 'agents'), layer: 'user' };
  const registry = await loadRegistry({ dirs: [{ path: dir, layer: 'explicit' }], agentDirs: [emptyAgents] });
  const withAgents = await loadRegistry({
    dirs: [{ path: dir, layer: 'explicit' }],
    agentDirs: [emptyAgents, { path: agentsDir, layer: 'explicit' }],
  });
  const snapshot = withAgents.current();
  if (snapshot.skills.length !== SKILLS || registry.current().skills.length !== SKILLS)
    throw new Error(`expected ${SKILLS} skills, got ${snapshot.skills.length}`);
  if (snapshot.agents.length !== AGENTS || snapshot.messages.length > 0)
    throw new Error(
      `expected ${AGENTS} agents and no messages, got ${snapshot.agents.length}: ${snapshot.messages.slice(0, 3).join('; ')}`,
    );
  const samples = () => ({ wall: [], cpu: [] });
  const parse = samples();
  const reload = samples();
  const parseBoth = samples();
  const reloadBoth = samples();
  const sample = async (fn, into) => {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(startCpu);
    into.wall.push(performance.now() - start);
    into.cpu.push((used.user + used.system) / 1000);
  };
  for (let i = 0; i < 22; i++) {
    await sample(() => discoverSkills(dir), parse);
    await sample(() => registry.reload(), reload);
    await sample(() => Promise.all([discoverSkills(dir), discoverAgents(agentsDir)]), parseBoth);
    await sample(() => withAgents.reload(), reloadBoth);
  }
  const settled = (s) => ({ wall: median(s.wall.slice(2)), cpu: median(s.cpu.slice(2)) });
  row('full `reload()` of 1,000 skills', settled(reload), '`discoverSkills` alone', settled(parse), '≤ 1.2×');
  row(
    `full \`reload()\` of 1,000 skills + ${AGENTS} agents`,
    settled(reloadBoth),
    '`discoverSkills` + `discoverAgents`',
    settled(parseBoth),
    '≤ 1.2×',
  );

  const skills = registry.current().skills;
  const triggerCount = skills.reduce((n, s) => n + s.triggers.length, 0);

  // Matcher build.
  const build = await time(() => new TriggerMatcher(skills), { runs: 20, warmup: 3 });
  const regexBuild = await time(
    () => {
      const compiled = buildRegex(skills);
      compiled.regex.test('warm'); // V8 compiles lazily, on first use
    },
    { runs: 20, warmup: 3 },
  );
  row(
    `trigger matcher build (${triggerCount} triggers)`,
    build,
    'one alternation RegExp',
    regexBuild,
    '≤ 50 ms',
  );

  // Matching a 10,000-character message, every skill allowed.
  const random = rng(7);
  const message = makeMessage(
    random,
    10_000,
    skills.map((s) => s.triggers),
  );
  const names = skills.map((s) => s.name);
  const allowed = new Set(names);
  const current = registry.current();
  const hits = current.matchTriggers(message, allowed).length;
  const naiveHits = naiveMatch(skills, message, allowed).length;
  if (hits !== naiveHits) throw new Error(`automaton found ${hits} skills, the naive loop ${naiveHits}`);
  const match = await time(() => current.matchTriggers(message, allowed), { runs: 200, warmup: 20 });
  const naive = await time(() => naiveMatch(skills, message, allowed), { runs: 30, warmup: 3 });
  const compiled = buildRegex(skills);
  const regex = await time(() => regexMatch(compiled, message), { runs: 30, warmup: 3 });
  row(
    `\`matchTriggers\`, 10,000-char message (${hits} hits)`,
    match,
    'naive `includes` loop',
    naive,
    '≤ 1 ms median',
  );
  row('  (same message)', match, 'one alternation RegExp', regex, '—');

  // allowedTools for a session: cached answer vs computing it afresh.
  const policy = new SkillPolicy(registry);
  policy.enable('session', 'skill-0007');
  policy.allowedTools('session');
  const toolCount = policy.allowedTools('session').length;
  const cached = await time(() => policy.allowedTools('session'), { runs: 200, warmup: 50, batch: 100 });
  let flip = false;
  const uncached = await time(
    () => {
      // Changing a grant invalidates the cache, so each call recomputes from the snapshot.
      flip = !flip;
      if (flip) policy.disable('session', 'skill-0999');
      else policy.reset('session', 'skill-0999');
      return policy.allowedTools('session');
    },
    { runs: 200, warmup: 20 },
  );
  row(
    `\`allowedTools\` (${toolCount} tools, cached)`,
    cached,
    'recomputed after a grant change',
    uncached,
    '≤ 0.1 ms',
  );

  const fmt = (ms) =>
    ms >= 1 ? `${ms.toFixed(1)} ms` : ms >= 0.01 ? `${ms.toFixed(3)} ms` : `${(ms * 1000).toFixed(2)} µs`;
  const cores = (await import('node:os')).cpus().length;
  const load = (await import('node:os')).loadavg()[0].toFixed(1);
  console.log(
    `Node ${process.version}, ${SKILLS} skills × 10 triggers, medians; ${cores} cores, load average ${load}\n`,
  );
  console.log(
    '| measurement | wall | CPU | baseline | baseline wall | baseline CPU | ratio (wall / CPU) | target |',
  );
  console.log('|---|---:|---:|---|---:|---:|---:|---|');
  for (const r of rows) {
    const ratio = `${(r.value.wall / r.baseline.wall).toFixed(2)}× / ${(r.value.cpu / r.baseline.cpu).toFixed(2)}×`;
    console.log(
      `| ${r.what} | ${fmt(r.value.wall)} | ${fmt(r.value.cpu)} | ${r.baselineName} | ${fmt(r.baseline.wall)} | ${fmt(r.baseline.cpu)} | ${ratio} | ${r.target} |`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
