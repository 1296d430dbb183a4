// What a `node:` or `python:` entrypoint names, parsed in one place: the schemes run it, and `skills check` looks for
// the module's file (without importing or running it) from the same reading.

const EXPORT_NAME = /^[A-Za-z_$][\w$]*$/;
const DOTTED = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/;

/** `node:<module path>#<export>` (no `#`: the default export). */
export interface NodeTarget {
  scheme: 'node';
  /** As written, relative to the skill folder. */
  modulePath: string;
  exportName: string;
}

/** `python:<module>.<function>`: the module a dotted name under the skill folder. */
export interface PythonTarget {
  scheme: 'python';
  moduleName: string;
  functionName: string;
}

export type ModuleTarget = NodeTarget | PythonTarget;

/** The target of `node:<target>`, or undefined when it is malformed (no module path, an export that is no name). */
export function nodeTarget(target: string): NodeTarget | undefined {
  const hash = target.lastIndexOf('#');
  const modulePath = hash === -1 ? target : target.slice(0, hash);
  const exportName = hash === -1 ? 'default' : target.slice(hash + 1);
  if (!modulePath || !EXPORT_NAME.test(exportName)) return undefined;
  return { scheme: 'node', modulePath, exportName };
}

/** The target of `python:<target>`, or undefined unless it is dotted Python names (a module and a function). */
export function pythonTarget(target: string): PythonTarget | undefined {
  if (!DOTTED.test(target)) return undefined;
  const dot = target.lastIndexOf('.');
  return { scheme: 'python', moduleName: target.slice(0, dot), functionName: target.slice(dot + 1) };
}

/** The module a whole `node:…` or `python:…` entrypoint names; undefined for other schemes and malformed targets. */
export function moduleTargetOf(entrypoint: string): ModuleTarget | undefined {
  const text = entrypoint.trim();
  if (text.startsWith('node:')) return nodeTarget(text.slice('node:'.length));
  if (text.startsWith('python:')) return pythonTarget(text.slice('python:'.length));
  return undefined;
}
