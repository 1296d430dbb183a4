import { EntrypointError } from './errors.js';

/**
 * The errors of a `node:` call, worded once: the in-process call and the sandboxed child (whose runner reports only
 * the kind and the reason) give the model the same text.
 */
export function importFailed(where: string, modulePath: string, reason: string, cause?: unknown) {
  return new EntrypointError('module-not-found', `${where}: importing ${modulePath} failed: ${reason}`, {
    ...(cause === undefined ? {} : { cause }),
  });
}

export function exportMissing(where: string, modulePath: string, exportName: string) {
  return new EntrypointError(
    'export-not-found',
    `${where}: ${modulePath} has no exported function '${exportName}'`,
  );
}

/** `reason`: the thrown value as `Name: message`. */
export function callFailed(where: string, reason: string, cause?: unknown) {
  return new EntrypointError('call-failed', `${where} threw ${reason}`, {
    ...(cause === undefined ? {} : { cause }),
  });
}
