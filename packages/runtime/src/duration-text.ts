/** A duration as people read it in a log or a table: `850 ms`, `12.3 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
