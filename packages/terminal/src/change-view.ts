import type { ChangePreview, PlannedChange } from '@birdie/graph';
import { structuredPatch } from 'diff';
import { visible } from './terminal-text.js';
import type { ToneLine } from './approval-box.js';

/** A question stays on one screen: the diff lines shown at most, the rest counted. */
export const MAX_CHANGE_LINES = 40;

/**
 * The planned changes of a call as the lines of a unified diff (`---`/`+++` headers, `@@` hunks, `-`/`+` lines),
 * toned green for additions and red for removals. A new file is all additions, a folder one line; a file the tool
 * could not show, and a preview that failed, say so. Past `maxLines` the rest is counted.
 */
export function changeLines(preview: ChangePreview, maxLines = MAX_CHANGE_LINES): ToneLine[] {
  if ('error' in preview) return [{ text: `preview failed: ${visible(preview.error)}`, tone: 'yellow' }];
  const lines = preview.changes.flatMap(linesOf);
  if (lines.length <= maxLines) return lines;
  const hidden = lines.length - maxLines;
  return [
    ...lines.slice(0, maxLines),
    { text: `… ${hidden} more line${hidden === 1 ? '' : 's'} of changes`, tone: 'dim' },
  ];
}

function linesOf(change: PlannedChange): ToneLine[] {
  const path = visible(change.path);
  const note = change.note ? ` (${visible(change.note)})` : '';
  if (change.kind === 'folder') return [{ text: `+ new folder ${path}/${note}`, tone: 'green' }];
  if (change.before === undefined || change.after === undefined)
    return [{ text: `${path}: ${change.note ? visible(change.note) : 'not shown'}`, tone: 'dim' }];
  const created = change.before === null;
  const patch = structuredPatch(path, path, change.before ?? '', change.after, undefined, undefined, {
    context: 3,
  });
  const header: ToneLine[] = [
    { text: `--- ${created ? '/dev/null' : path}`, tone: 'dim' },
    { text: `+++ ${path}${created ? ' (new file)' : ''}`, tone: 'dim' },
  ];
  if (patch.hunks.length === 0)
    return [...header, { text: '(no change: the content is the same)', tone: 'dim' }];
  return [
    ...header,
    ...patch.hunks.flatMap((hunk): ToneLine[] => [
      {
        text: `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`,
        tone: 'cyan',
      },
      ...hunk.lines.map((line): ToneLine => {
        const text = visible(line);
        if (line.startsWith('+')) return { text, tone: 'green' };
        if (line.startsWith('-')) return { text, tone: 'red' };
        return line.startsWith('\\') ? { text, tone: 'dim' } : { text };
      }),
    ]),
  ];
}

/** A hunk's range as unified diffs write it: an empty side starts at the line before (`-0,0` for a new file). */
const range = (start: number, lines: number) => `${lines === 0 ? start - 1 : start},${lines}`;
