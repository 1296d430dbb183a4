import { uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { bodyTs, storedTs, uuid6Millis } from './timestamp.js';

describe('checkpoint timestamps', () => {
  it('keeps the gap to the uuid6 id when it gives the same text back', () => {
    const before = Date.now();
    const id = uuid6(-1);
    expect(uuid6Millis(id)).toBeGreaterThanOrEqual(before);
    expect(uuid6Millis(id)).toBeLessThanOrEqual(Date.now());
    const ts = new Date(uuid6Millis(id)! + 2).toISOString();
    expect(storedTs(id, ts)).toEqual({ dt: 2 });
    expect(bodyTs(id, { dt: 2 })).toBe(ts);
  });

  it('keeps the whole text for other ids and other texts', () => {
    const id = uuid6(3);
    for (const ts of [
      '2026-01-01T00:00:00Z',
      'not a date',
      new Date(uuid6Millis(id)! + 3_600_000).toISOString(),
    ]) {
      expect(storedTs(id, ts)).toEqual({ ts });
      expect(bodyTs(id, { ts })).toBe(ts);
    }
    expect(storedTs('checkpoint-1', '2026-01-01T00:00:00.000Z')).toEqual({ ts: '2026-01-01T00:00:00.000Z' });
    expect(uuid6Millis('1f1e81f5-fd87-1ed0-8d46-659d18cff717')).toBeUndefined(); // a version-1 layout
  });
});
