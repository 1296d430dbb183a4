import { MAX_ADMISSION_LIMIT } from '@birdie/store/limits';
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 2, 12, 0, 0);
const at = (ms: number) => new Date(T0 + ms);

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('admissions over a sliding window (a user’s turns per minute)', () => {
    it('admits `limit` in a window; the next is refused until the first leaves it; keys count apart', async () => {
      const window = { limit: 2, windowMs: MINUTE };
      const first = await t.store.admissions.admit('turns-per-minute:alice', { ...window, now: at(0) });
      expect(first).toMatchObject({ admitted: true });
      expect(
        await t.store.admissions.admit('turns-per-minute:alice', { ...window, now: at(10_000) }),
      ).toMatchObject({
        admitted: true,
      });
      // Another process on the same data counts the same admissions.
      const other = await t.env.open();
      expect(await other.admissions.admit('turns-per-minute:alice', { ...window, now: at(20_000) })).toEqual({
        admitted: false,
        retryAt: at(MINUTE),
      });
      expect(
        await other.admissions.admit('turns-per-minute:bob', { ...window, now: at(20_000) }),
      ).toMatchObject({
        admitted: true,
      });
      // The first admission's window has passed: one place is free, then none until the second's has.
      expect(
        await t.store.admissions.admit('turns-per-minute:alice', { ...window, now: at(MINUTE) }),
      ).toMatchObject({
        admitted: true,
      });
      expect(
        await t.store.admissions.admit('turns-per-minute:alice', { ...window, now: at(MINUTE + 1) }),
      ).toEqual({
        admitted: false,
        retryAt: at(10_000 + MINUTE),
      });
    });

    it('of admissions racing from two processes for two places, exactly two are let in', async () => {
      const other = await t.env.open();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? other : t.store).admissions.admit('race', { limit: 2, windowMs: MINUTE, now: at(i) }),
        ),
      );
      expect(results.filter((r) => r.admitted)).toHaveLength(2);
      expect(
        await t.store.admissions.admit('race', { limit: 2, windowMs: MINUTE, now: at(100) }),
      ).toMatchObject({
        admitted: false,
      });
    });

    it('an admission outlives the process that made it (it is not a lease): only its window ends it', async () => {
      const other = await t.env.open();
      expect(await other.admissions.admit('gone', { limit: 1, windowMs: MINUTE, now: at(0) })).toMatchObject({
        admitted: true,
      });
      await other.close();
      expect(
        await t.store.admissions.admit('gone', { limit: 1, windowMs: MINUTE, now: at(MINUTE - 1) }),
      ).toEqual({
        admitted: false,
        retryAt: at(MINUTE),
      });
    });

    it('a withdrawn admission does not count; rows past their window are cleared', async () => {
      const made = await t.store.admissions.admit('w', { limit: 1, windowMs: MINUTE, now: at(0) });
      if (!made.admitted) throw new Error('not admitted');
      await t.store.admissions.withdraw('w', made.id);
      expect(await t.store.admissions.admit('w', { limit: 1, windowMs: MINUTE, now: at(1) })).toMatchObject({
        admitted: true,
      });
      // Withdrawing under another key, or an id nobody holds, does nothing.
      await t.store.admissions.withdraw('other', made.id + 1);
      expect(await t.store.admissions.admit('w', { limit: 1, windowMs: MINUTE, now: at(2) })).toMatchObject({
        admitted: false,
      });
      await t.store.admissions.admit('x', { limit: 1, windowMs: MINUTE, now: at(3 * MINUTE) });
      const left = await t.env.one<number | string>("SELECT count(*) FROM admissions WHERE key = 'w'");
      expect(Number(left)).toBe(0);
    });

    it('a limit may be as large as MAX_ADMISSION_LIMIT (what a settings schema lets through)', async () => {
      expect(
        await t.store.admissions.admit('most', { limit: MAX_ADMISSION_LIMIT, windowMs: MINUTE, now: at(0) }),
      ).toMatchObject({ admitted: true });
    });

    it.each([
      ['', { limit: 1, windowMs: MINUTE }],
      ['a\0b', { limit: 1, windowMs: MINUTE }],
      ['x'.repeat(201), { limit: 1, windowMs: MINUTE }],
      ['k', { limit: 0, windowMs: MINUTE }],
      ['k', { limit: 1.5, windowMs: MINUTE }],
      ['k', { limit: MAX_ADMISSION_LIMIT + 1, windowMs: MINUTE }],
      ['k', { limit: 1, windowMs: 999 }],
      ['k', { limit: 1, windowMs: 25 * 60 * MINUTE }],
      ['k', { limit: 1, windowMs: MINUTE, now: new Date(Number.NaN) }],
    ])('refuses the admission %j %j', async (key, opts) => {
      expect(await codeOf(() => t.store.admissions.admit(key, opts))).toBe('invalid-argument');
    });
  });
});
