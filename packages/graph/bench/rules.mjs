// pnpm bench (approval rules): deciding one raw command against 1,000 rules, against a plain string-prefix loop over
// 1,000 strings measured in the same run. The budget is 1 ms per decision. Run after `pnpm build`.
import { compileRules } from '../dist/index.js';

const RULES = 1000;
const ROUNDS = Number(process.env.BENCH_RULE_ROUNDS ?? 2000);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

// 1,000 rules naming the same tool (the worst case: every rule is tried), the ones that match at the end
const rules = [];
for (let i = 0; i < RULES - 3; i++) {
  const effect = i % 10 === 0 ? 'deny' : i % 10 === 1 ? 'ask' : 'allow';
  rules.push({ pattern: `run_bash(tool${i} sub${i % 7} *)`, effect, source: { kind: 'user' } });
}
rules.push({ pattern: 'run_bash(git log *)', effect: 'allow', source: { kind: 'user' } });
rules.push({ pattern: 'run_bash(head *)', effect: 'allow', source: { kind: 'user' } });
rules.push({ pattern: 'run_bash(npm test *)', effect: 'allow', source: { kind: 'user' } });
const prefixes = rules.map((r) => r.pattern.slice(9, -3));

const compileStart = now();
const set = compileRules(rules);
const compileMs = now() - compileStart;
// a step with agent, skill or session rules compiles the set again; parsed patterns are cached by then
const recompileStart = now();
compileRules([...rules, { pattern: 'run_bash(make *)', effect: 'allow', source: { kind: 'session' } }]);
const recompileMs = now() - recompileStart;

const tool = { name: 'run_bash', skill: 'shell', raw: true };
const command = "git log --oneline -5 | head -5 && npm test -- --grep 'rules'";
let sink = 0; // keeps the baseline loop from being optimised away
const decide = () => {
  // a new args object each time: nothing is cached between decisions
  const decision = set.decide({ tool, args: { command } });
  if (decision?.effect !== 'allow') throw new Error('the bench command must be allowed');
};
const prefixLoop = () => {
  for (const p of prefixes) if (command.startsWith(p)) sink += 1;
};

for (let i = 0; i < 200; i++) {
  decide();
  prefixLoop();
}
const times = { decide: [], prefix: [] };
for (let i = 0; i < ROUNDS; i++) {
  let t = now();
  prefixLoop();
  times.prefix.push(now() - t);
  t = now();
  decide();
  times.decide.push(now() - t);
}
const base = median(times.prefix);
console.log(`## @birdie/graph approval rules\n`);
console.log(
  `${RULES} rules, command \`${command}\` (3 simple commands), ${ROUNDS} rounds; compile ${compileMs.toFixed(2)} ms (again, patterns parsed: ${recompileMs.toFixed(2)} ms).\n`,
);
console.log('| case | median ms | p90 ms | ratio (median) |');
console.log('|---|---:|---:|---:|');
console.log(
  `| baseline: string-prefix loop over ${RULES} strings | ${base.toFixed(4)} | ${p90(times.prefix).toFixed(4)} | 1.0× |`,
);
console.log(
  `| decide against ${RULES} rules (read + match) | ${median(times.decide).toFixed(4)} | ${p90(times.decide).toFixed(4)} | ${(median(times.decide) / base).toFixed(1)}× |`,
);
const verdict = median(times.decide) <= 1 ? 'within' : 'OVER';
console.log(
  `\nBudget 1 ms per decision: ${verdict} (median ${median(times.decide).toFixed(3)} ms; ${sink} prefix hits).`,
);
