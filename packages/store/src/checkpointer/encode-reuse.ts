import { MissingBlobError } from './blob-cache.js';
import { Encoder, type Serde } from './codec.js';
import { threadKey } from './config.js';

/**
 * Runs encode-then-commit with an encoder that may skip serialising values this process knows the thread already
 * stores (`threadIds`: thread rows seen, by `threadKey`; `blobs.has`). If one vanished meanwhile (another process
 * deleted, or deleted and recreated, the thread), the commit throws `MissingBlobError` and it runs again without reuse.
 */
export async function withReuse(
  serde: Serde,
  threadIds: Map<string, number>,
  blobs: { has(thread: number | undefined, key: string): boolean },
  threadId: string,
  ns: string,
  save: (encoder: Encoder) => Promise<void>,
): Promise<void> {
  const thread = threadIds.get(threadKey(threadId, ns));
  try {
    await save(new Encoder(serde, (key) => blobs.has(thread, key)));
  } catch (error) {
    if (!(error instanceof MissingBlobError)) throw error;
    threadIds.delete(threadKey(threadId, ns));
    await save(new Encoder(serde));
  }
}
