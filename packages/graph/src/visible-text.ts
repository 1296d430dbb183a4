// The one rule for showing text a person decides on lives at the bottom of the packages, so that a front end can use
// it without loading the agent (`birdie tokens list` prints through it): see `@birdie/skill-parser/visible-text`.
export { escapeInvisible } from '@birdie/skill-parser/visible-text';
