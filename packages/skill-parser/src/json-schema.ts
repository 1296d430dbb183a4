/**
 * `@birdie/skill-parser/json-schema`: the check of a tool's JSON Schema (`schemaProblems`), the one the parser applies
 * to a `schema:`. A separate entry point, so that a tool's argument check loads only the schema validator, not the
 * SKILL.md parser (its Markdown, YAML and frontmatter modules).
 */
export { type SchemaProblem, schemaProblems } from './schema-checks.js';
