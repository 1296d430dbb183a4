/**
 * Per thread, the calls its last run ended waiting for approval on. Known in this process only, and needed only
 * without a journal (which records that they never started): kept here rather than read back from the checkpoint,
 * which would cost every turn a read of the thread for what only an abandoned question needs.
 *
 * Bounded: a server's sessions left with an open question would otherwise be remembered for ever. Past `max` threads
 * the one asked longest ago is forgotten; its calls, if the user moves on, are answered as a journal (or its
 * absence) says.
 */
export class OpenQuestions {
  readonly #asked = new Map<string, ReadonlySet<string>>();

  constructor(private readonly max = 1000) {}

  /** The calls `threadId`'s last run left waiting, forgotten as they are read: the run that reads them answers them. */
  take(threadId: string): ReadonlySet<string> | undefined {
    const asked = this.#asked.get(threadId);
    this.#asked.delete(threadId);
    return asked;
  }

  remember(threadId: string, asked: ReadonlySet<string>): void {
    // Deleted first so that a thread asked again counts as the newest.
    this.#asked.delete(threadId);
    this.#asked.set(threadId, asked);
    if (this.#asked.size > this.max) this.#asked.delete(this.#asked.keys().next().value as string);
  }

  get size(): number {
    return this.#asked.size;
  }
}
