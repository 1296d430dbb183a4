// A turn's events printed as `birdie run` prints them, then a Markdown answer rendered for a 60-column terminal.
// The events are written out here; a front end passes those of `@birdie/graph`'s or `@birdie/runtime`'s stream.
import { EventPrinter } from '@birdie/terminal/events';
import { renderMarkdown } from '@birdie/terminal/markdown';
import { styler } from '@birdie/terminal/style';

const style = styler(process.stdout, { NO_COLOR: '1' }); // plain text, so the output reads the same in a pipe
const printer = new EventPrinter({ answer: process.stdout, info: process.stdout, style, mode: () => 'short' });

const events = [
  { type: 'tool-start', id: 'c1', name: 'list_files', skill: 'filesystem', args: { path: '.' } },
  { type: 'tool-end', id: 'c1', name: 'list_files', ok: true, output: 'README.md\nsrc\n', durationMs: 12 },
  // Text from outside birdie never drives the terminal: the escape sequence in this token is dropped.
  { type: 'token', text: 'Two entries: README.md and src.\x1b]0;pwned\x07\n' },
];
for (const event of events) printer.onEvent(event);

const answer = '## Files\n\n| name | kind |\n|---|---|\n| README.md | file |\n| src | folder |\n\nRun `ls -la` for more.';
process.stdout.write(`\n${renderMarkdown(answer, { style, width: 60 })}`);
