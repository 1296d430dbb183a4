// Preloaded (`node --import`) into every process a bench measures: on exit, writes "<peak RSS KiB> <CPU ms>" to
// $BENCH_PROBE_FILE. Costs one tiny module, the same for every case.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  if (process.env.BENCH_PROBE_FILE) writeFileSync(process.env.BENCH_PROBE_FILE, `${usage.maxRSS} ${cpuMs}\n`);
});
