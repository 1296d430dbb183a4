import type { DamagedRecord } from '../errors.js';

/**
 * A stored record that fails its checksum, does not inflate or does not parse, or points at a value
 * that is gone. Internal: the checkpointer turns it into `StoreError('corrupt-record')` with the session,
 * the step and the file.
 */
export class DamageError extends Error {
  constructor(
    readonly table: DamagedRecord['table'],
    readonly reason: string,
    readonly where: { seq?: number; taskId?: string; blobId?: number } = {},
  ) {
    super(reason);
  }

  /** The same damage placed at the step that reads it (a blob seen from a checkpoint); known places win. */
  at(where: { seq?: number; taskId?: string }): DamageError {
    return new DamageError(this.table, this.reason, { ...where, ...this.where });
  }
}

/** Runs `fn`, turning any failure into a DamageError of `table` (keeping one that already is). */
export function decoding<T>(table: DamagedRecord['table'], fn: () => T, where?: DamageError['where']): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof DamageError) throw where ? error.at(where) : error;
    throw new DamageError(table, reasonOf(error), where);
  }
}

export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
