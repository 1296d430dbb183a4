import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('delivery claims (a chat event delivered twice is handled once)', () => {
    it('grants a key once; a claim sharing any key with a live one records nothing', async () => {
      expect(await t.store.deliveries.claim(['slack:event:Ev1', 'slack:C1:1.000001'], DAY)).toBe(true);
      expect(await t.store.deliveries.claim(['slack:event:Ev1'], DAY)).toBe(false);
      // The mention and the message of one post: another event id, the same channel and ts.
      expect(await t.store.deliveries.claim(['slack:event:Ev2', 'slack:C1:1.000001'], DAY)).toBe(false);
      expect(await t.store.deliveries.claim(['slack:event:Ev2'], DAY)).toBe(true);
      // Another process on the same data sees the claims.
      const other = await t.env.open();
      expect(await other.deliveries.claim(['slack:C1:1.000001'], DAY)).toBe(false);
      expect(await other.deliveries.claim(['telegram:42:7001'], DAY)).toBe(true);
    });

    it('of claims racing from two processes on one key, exactly one wins', async () => {
      const other = await t.env.open();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? other : t.store).deliveries.claim([`race:${i}`, 'race:shared'], DAY),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      // The losers' own keys were not recorded.
      const winner = results.indexOf(true);
      for (let i = 0; i < results.length; i++)
        if (i !== winner) expect(await t.store.deliveries.claim([`race:${i}`], DAY)).toBe(true);
    });

    it('lets an expired claim go, and clears expired rows', async () => {
      expect(await t.store.deliveries.claim(['old:1'], 1000)).toBe(true);
      expect(await t.store.deliveries.claim(['old:2'], 1000)).toBe(true);
      await t.env.exec('UPDATE deliveries SET expires_at = ?', [Date.now() - 1]);
      expect(await t.store.deliveries.claim(['old:1'], DAY)).toBe(true);
      expect(await t.store.deliveries.claim(['old:1'], DAY)).toBe(false);
      const left = await t.env.one<number | string>("SELECT count(*) FROM deliveries WHERE key = 'old:2'");
      expect(Number(left)).toBe(0);
    });

    it('a claim stands when clearing old rows fails (the keys are recorded: failing it would lose the message)', async () => {
      expect(await t.store.deliveries.claim(['poison'], 1000)).toBe(true);
      await t.env.exec('UPDATE deliveries SET expires_at = ?', [Date.now() - 1]);
      // Deleting the expired row fails from now on: the clean-up after a claim cannot succeed.
      if (backend.name === 'sqlite') {
        await t.env.exec(
          "CREATE TRIGGER no_clear BEFORE DELETE ON deliveries WHEN old.key = 'poison' BEGIN SELECT RAISE(ABORT, 'no'); END",
        );
      } else {
        await t.env.exec(
          "CREATE FUNCTION no_clear() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF old.key = 'poison' THEN RAISE EXCEPTION 'no'; END IF; RETURN old; END $$",
        );
        await t.env.exec(
          'CREATE TRIGGER no_clear BEFORE DELETE ON deliveries FOR EACH ROW EXECUTE FUNCTION no_clear()',
        );
      }
      expect(await t.store.deliveries.claim(['fresh:1'], DAY)).toBe(true);
      expect(await t.store.deliveries.claim(['fresh:1'], DAY)).toBe(false);
    });

    it('releases keys so that a redelivery is handled (handling failed before the turn was queued)', async () => {
      expect(await t.store.deliveries.claim(['rel:1', 'rel:2'], DAY)).toBe(true);
      await t.store.deliveries.release(['rel:1', 'rel:2']);
      expect(await t.store.deliveries.claim(['rel:2'], DAY)).toBe(true);
      expect(await t.store.deliveries.claim(['rel:1', 'rel:2'], DAY)).toBe(false);
      // Releasing keys nobody holds does nothing.
      await t.store.deliveries.release(['never']);
      expect(await codeOf(() => t.store.deliveries.release([]))).toBe('invalid-argument');
    });

    it.each([
      [[], DAY],
      [[''], DAY],
      [['a\0b'], DAY],
      [['x'.repeat(201)], DAY],
      [Array.from({ length: 9 }, (_, i) => `k${i}`), DAY],
      [['k'], 0],
      [['k'], 31 * DAY],
      [['k'], 1.5],
    ])('refuses the claim %j for %j ms', async (keys, ttlMs) => {
      expect(await codeOf(() => t.store.deliveries.claim(keys as string[], ttlMs))).toBe('invalid-argument');
    });
  });
});
