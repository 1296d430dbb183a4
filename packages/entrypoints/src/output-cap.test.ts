import { describe, expect, it } from 'vitest';
import { capText, OutputCap } from './output-cap.js';

describe('OutputCap', () => {
  it('keeps everything under the limit', () => {
    const cap = new OutputCap(100);
    cap.push(Buffer.from('hello '));
    cap.push(Buffer.from('world'));
    expect(cap.text()).toBe('hello world');
    expect(cap.truncated).toBe(false);
  });

  it('keeps 80% head and 20% tail and notes the dropped bytes', () => {
    const cap = new OutputCap(10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') cap.push(Buffer.from(ch));
    expect(cap.truncated).toBe(true);
    expect(cap.dropped).toBe(16);
    expect(cap.bytesSeen).toBe(26);
    expect(cap.text()).toBe('abcdefgh\n[… 16 bytes of output dropped …]\nyz');
  });

  it('handles a single chunk larger than the whole cap', () => {
    const cap = new OutputCap(10);
    cap.push(Buffer.from('0123456789ABCDEFGHIJ'));
    expect(cap.text()).toBe('01234567\n[… 10 bytes of output dropped …]\nIJ');
  });

  it('does not split UTF-8 sequences at the cut', () => {
    const cap = new OutputCap(10);
    cap.push(Buffer.from('ééééééééééé')); // 22 bytes
    const text = cap.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('éééé\n')).toBe(true);
  });

  it('capText leaves short text alone and cuts long text', () => {
    expect(capText('short', 10)).toEqual({ text: 'short', truncated: false });
    expect(capText('x'.repeat(30), 10).truncated).toBe(true);
  });
});
