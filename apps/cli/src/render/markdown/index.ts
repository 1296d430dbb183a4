// The REPL's Markdown renderer, loaded with `import()` on the first answer that needs it (never at start).
export { type RenderOptions, renderMarkdown } from './render.js';
export { TerminalAnswer, type TerminalAnswerOptions } from './terminal.js';
