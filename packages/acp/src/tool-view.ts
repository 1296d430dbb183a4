import { isAbsolute, resolve } from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { escapeInvisible } from '@birdie/graph/visible-text';

const KINDS: Array<[RegExp, ToolKind]> = [
  [/^todo_|plan/, 'think'],
  [/search|grep|find|glob/, 'search'],
  [/delete|remove|(^|_)rm(_|$)|unlink/, 'delete'],
  [/move|rename/, 'move'],
  [/write|append|edit|create|update|patch|mkdir|replace|insert|save/, 'edit'],
  [/bash|shell|exec|run|command|terminal/, 'execute'],
  [/fetch|http|url|web|download|get_weather|request/, 'fetch'],
  [/read|list|show|view|load|get|cat|open|reference/, 'read'],
];

const ACP_KINDS = new Set<ToolKind>([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
]);

/** The ACP kind of a birdie tool, from its name (the client picks an icon by it); `other` when nothing fits. */
export function toolKind(name: string): ToolKind {
  const lower = name.toLowerCase();
  return KINDS.find(([pattern]) => pattern.test(lower))?.[1] ?? 'other';
}

/** A kind another agent reported, if it is one ACP knows. */
export function knownKind(kind: string | undefined): ToolKind | undefined {
  return kind && ACP_KINDS.has(kind as ToolKind) ? (kind as ToolKind) : undefined;
}

const SUBJECT_KEYS = ['command', 'path', 'file', 'pattern', 'url', 'query', 'name'];

/** A one-line title: the tool and the argument that says what it works on (`read_file README.md`). */
export function toolTitle(name: string, args: Record<string, unknown>): string {
  const key = SUBJECT_KEYS.find((k) => typeof args[k] === 'string' && args[k] !== '');
  if (!key) return escapeInvisible(name);
  const value = escapeInvisible(String(args[key]).replace(/\s+/g, ' ').trim());
  return `${escapeInvisible(name)} ${value.length > 120 ? `${value.slice(0, 119)}…` : value}`;
}

/** The files a call touches (its `path` argument), absolute, so the client can follow along. */
export function toolLocations(args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const path = typeof args.path === 'string' && args.path !== '' ? args.path : undefined;
  if (!path || path.includes('\0')) return [];
  const line = typeof args.start_line === 'number' ? { line: args.start_line } : {};
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path), ...line }];
}
