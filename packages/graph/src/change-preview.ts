import type { ChangePreview, PlannedChange } from './types.js';

/** A preview is kept in the approval question (and its checkpoint): beyond this, its texts are left out. */
export const MAX_PREVIEW_CHARS = 256 * 1024;
const MAX_CHANGES = 100;

const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * A preview entrypoint's output (JSON text: `{ changes: [...] }`) checked into a `ChangePreview`. Anything else is an
 * error the user is shown instead of the diff; texts over `MAX_PREVIEW_CHARS` in all are dropped with a note.
 */
export function readChangePreview(output: string): ChangePreview {
  let value: unknown;
  try {
    value = JSON.parse(output);
  } catch {
    return { error: 'The preview did not return JSON ({"changes": [...]}).' };
  }
  const list = (value as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(list)) return { error: 'The preview did not return {"changes": [...]}.' };
  const changes: PlannedChange[] = [];
  let budget = MAX_PREVIEW_CHARS;
  for (const raw of list.slice(0, MAX_CHANGES)) {
    const item = raw as Record<string, unknown> | null;
    if (!item || typeof item !== 'object' || !isText(item.path))
      return { error: 'A change in the preview has no path.' };
    const note = isText(item.note) ? { note: item.note } : {};
    if (item.kind === 'folder') {
      changes.push({ kind: 'folder', path: item.path, ...note });
      continue;
    }
    if (item.kind !== 'file')
      return { error: `A change in the preview has an unknown kind for ${item.path}.` };
    const before = item.before === null ? null : isText(item.before) ? item.before : undefined;
    const after = isText(item.after) ? item.after : undefined;
    const size = (before ?? '').length + (after ?? '').length;
    if (after === undefined || before === undefined || size > budget) {
      changes.push({
        kind: 'file',
        path: item.path,
        note: isText(item.note) ? item.note : size > budget ? 'too large to show' : 'not shown',
      });
      continue;
    }
    budget -= size;
    changes.push({ kind: 'file', path: item.path, before, after, ...note });
  }
  return { changes };
}
