import { DamageError } from './damage.js';

/** 100-ns intervals between the Gregorian epoch of UUID time (1582-10-15) and the Unix epoch. */
const GREGORIAN_OFFSET = 122_192_928_000_000_000n;
const UUID6 = /^([0-9a-f]{8})-([0-9a-f]{4})-6([0-9a-f]{3})-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Largest gap kept as a number; anything else keeps the full text. */
const MAX_GAP_MS = 60_000;

/** The milliseconds since the epoch a version-6 UUID (LangGraph's checkpoint ids) was made at. */
export function uuid6Millis(id: string): number | undefined {
  const m = UUID6.exec(id);
  if (!m) return undefined;
  const ticks = BigInt(`0x${m[1]}${m[2]}${m[3]}`) - GREGORIAN_OFFSET;
  return ticks < 0n ? undefined : Number(ticks / 10_000n);
}

/**
 * A checkpoint's `ts` as stored: LangGraph stamps it within a millisecond or two of the time in the checkpoint's
 * uuid6 id, so the body keeps the gap (`dt`, a small number) instead of a 24-character date. Any other `ts` (an id
 * that is not a uuid6, a `ts` that is not the ISO text the gap gives back) is kept whole.
 */
export function storedTs(id: string, ts: string): { ts: string } | { dt: number } {
  const base = uuid6Millis(id);
  const at = Date.parse(ts);
  if (base === undefined || Number.isNaN(at)) return { ts };
  const dt = at - base;
  if (Math.abs(dt) > MAX_GAP_MS || new Date(base + dt).toISOString() !== ts) return { ts };
  return { dt };
}

/** The `ts` a body stored with `storedTs`. */
export function bodyTs(id: string, body: { ts?: string; dt?: number }): string {
  if (typeof body.ts === 'string') return body.ts;
  const base = uuid6Millis(id);
  if (base === undefined || typeof body.dt !== 'number') {
    throw new DamageError('cp_checkpoints', 'its timestamp is missing');
  }
  return new Date(base + body.dt).toISOString();
}
