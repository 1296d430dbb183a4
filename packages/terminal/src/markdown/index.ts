// `@birdie/terminal/markdown`: the Markdown renderer, its own entry so that a front end can load it with `import()` on
// the first answer that needs it (the parser, GFM and the highlighter are most of this package's weight).
export { type RenderOptions, renderMarkdown } from './render.js';
export { TerminalAnswer, type TerminalAnswerOptions } from './terminal.js';
