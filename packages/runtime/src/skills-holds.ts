// A firing refused because its agent's skills are off would be refused, and logged, at every due time: what decides it
// (the settings, read once at start; the agent files; a task's grants) does not change while the loop runs but for the
// agent files. So after its first refusal (logged) the trigger is held, said once, until the agent files are read
// again and no longer refuse it (then it fires again, and is held again if it is still refused).

/** The triggers held because their first firing was refused for skills that are off, by trigger id. */
export class SkillsHolds {
  readonly #held = new Set<string>();
  /** Counts the agent-file readings: a refusal decided before the latest one says nothing about the files now. */
  #reading = 0;

  has(id: string): boolean {
    return this.#held.has(id);
  }

  /** Taken when a firing starts, given back to `hold` when it was refused. */
  get reading(): number {
    return this.#reading;
  }

  /**
   * Holds `id` after a firing that started at `reading` was refused: true when it is held now and was not (say so).
   * False when the agent files were read again since the firing started (its refusal may be out of date: the next
   * firing tells), or when it was held already.
   */
  hold(id: string, reading: number): boolean {
    if (reading !== this.#reading || this.#held.has(id)) return false;
    this.#held.add(id);
    return true;
  }

  /** The agent files were read again: keeps held only the triggers `stillRefused` names (given those held). */
  reread(stillRefused: (held: readonly string[]) => ReadonlySet<string>): void {
    this.#reading += 1;
    if (this.#held.size === 0) return;
    const still = stillRefused([...this.#held]);
    for (const id of this.#held) if (!still.has(id)) this.#held.delete(id);
  }
}
