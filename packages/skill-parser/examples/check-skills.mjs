// Usage: node examples/check-skills.mjs <skills-dir>
// Discovers and checks every skill in the folder, prints one line per diagnostic and a summary; exits 1 on errors.
import { discoverSkills } from '@birdie/skill-parser';

const dir = process.argv[2] ?? '.';
const { skills, messages } = await discoverSkills(dir);
for (const message of messages) {
  const level = message.fatal === true ? 'error' : message.fatal === false ? 'warning' : 'info';
  console.log(`${String(message)} ${level} [${message.ruleId}]`);
}
for (const skill of skills) console.log(`ok ${skill.name} (${skill.kind}, ${skill.tools.length} tools)`);
const errors = messages.filter((m) => m.fatal === true).length;
console.log(`${skills.length} skills loaded, ${errors} errors, ${messages.length - errors} warnings/infos`);
process.exitCode = errors ? 1 : 0;
