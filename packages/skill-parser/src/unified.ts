/**
 * `@birdie/skill-parser/unified`: the parser as a unified plugin, on the real mdast tree. A separate entry point, so
 * that the fast route (`@birdie/skill-parser`) never loads unified or remark.
 */
export { type RemarkSkillOptions, remarkSkill, skillProcessor } from './remark-skill.js';
