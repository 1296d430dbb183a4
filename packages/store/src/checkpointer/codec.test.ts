import { describe, expect, it } from 'vitest';
import { decodeRef, Encoder, refIds, resolveRef, type Serde } from './codec.js';

const serde: Serde = {
  async dumpsTyped(value) {
    return value instanceof Uint8Array ? ['bytes', value] : ['json', Buffer.from(JSON.stringify(value))];
  },
  async loadsTyped(type, data) {
    if (type === 'bytes') return data;
    return JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
  },
};

async function roundTrip(value: unknown, known: (key: string) => boolean = () => false) {
  const encoder = new Encoder(serde, known);
  const draft = await encoder.encode(value);
  const ids = encoder.blobs.map((_, i) => 100 + i);
  const ref = resolveRef(draft, ids);
  const blobs = new Map(
    encoder.blobs.map((b, i) => [
      100 + i,
      b.json ? JSON.parse(Buffer.from(b.json).toString('utf8')) : undefined,
    ]),
  );
  return { ref, encoder, value: await decodeRef(ref, serde, blobs) };
}

describe('codec', () => {
  it('inlines small values and stores long lists element by element, run-length encoded', async () => {
    expect((await roundTrip(42)).ref).toEqual(['j', '42']);
    expect((await roundTrip([1, 2])).ref).toEqual(['j', '[1,2]']);
    expect((await roundTrip(undefined)).ref).toEqual(['u']);
    const long = Array.from({ length: 5 }, (_, i) => ({ text: `${i}`.repeat(60) }));
    const { ref, value } = await roundTrip(long);
    expect(ref).toEqual(['a', [100, 5]]);
    expect(refIds(ref)).toEqual([100, 101, 102, 103, 104]);
    expect(value).toEqual(long);
  });

  it('stores a repeated element once', async () => {
    const item = { text: 'y'.repeat(200) };
    const { encoder, ref, value } = await roundTrip([item, { ...item }, item]);
    expect(encoder.blobs).toHaveLength(1);
    expect(ref).toEqual(['a', [100, 1, -1, 1, -1, 1]]);
    expect(refIds(ref)).toEqual([100, 100, 100]);
    expect(value).toEqual([item, item, item]);
  });

  it('keeps delta snapshots recognisable', async () => {
    const snapshot = { lg_name: 'DeltaSnapshot', value: [{ t: 'z'.repeat(200) }] };
    const { ref, value } = await roundTrip(snapshot);
    expect(ref[0]).toBe('s');
    expect(value).toEqual(snapshot);
    expect((await roundTrip({ lg_name: 'DeltaSnapshot', value: [] })).value).toEqual({
      lg_name: 'DeltaSnapshot',
      value: [],
    });
  });

  it('reuses known elements without serialising, unless their id or content changed', async () => {
    const message: { id?: string; content: string } = { content: 'q'.repeat(200) };
    const first = await roundTrip([message]);
    const key = first.encoder.blobs[0]!.key;
    const again = await roundTrip([message], (k) => k === key);
    expect(again.encoder.blobs[0]!.json).toBeUndefined();
    message.id = 'assigned-later';
    const changed = await roundTrip([message], (k) => k === key);
    expect(changed.encoder.blobs[0]!.key).not.toBe(key);
    expect(changed.value).toEqual([{ id: 'assigned-later', content: 'q'.repeat(200) }]);
  });

  it("stores a graph input's list property by property, sharing blobs with the list itself", async () => {
    const message = { id: 'human-1', content: 'w'.repeat(200) };
    const encoder = new Encoder(serde);
    const input = await encoder.encode({ messages: [message], skip: undefined, note: 'n' });
    const write = await encoder.encode([message]);
    expect(encoder.blobs).toHaveLength(1);
    expect(input).toEqual(['o', { messages: ['a', [0]], note: ['j', '"n"'] }]);
    const blobs = new Map([[7, message]]);
    expect(await decodeRef(resolveRef(input, [7]), serde, blobs)).toEqual({ messages: [message], note: 'n' });
    expect(refIds(resolveRef(write, [7]))).toEqual([7]);
    // Class instances, serialised LangChain objects and objects without a list stay one value.
    expect((await roundTrip({ lc: 1, kwargs: [message] })).ref[0]).toBe('b');
    expect(
      (
        await roundTrip(
          new (class Box {
            items = [message];
          })(),
        )
      ).ref[0],
    ).toBe('b');
    expect((await roundTrip({ text: 'v'.repeat(200) })).ref[0]).toBe('b');
  });

  it('round-trips bytes', async () => {
    const { value } = await roundTrip(new Uint8Array([1, 2, 3]));
    expect(Buffer.from(value as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
  });
});
