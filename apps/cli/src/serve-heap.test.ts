import { describe, expect, it } from 'vitest';
import { SERVE_HEAP_GROWING_PERCENT, serveHeapFlags } from './serve-heap.js';

describe('serveHeapFlags', () => {
  it('fixes V8 heap growth for a long-running server by default', () => {
    expect(serveHeapFlags([])).toEqual([`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`]);
    expect(serveHeapFlags(['--enable-source-maps'])).toEqual([
      `--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`,
    ]);
  });

  it("leaves the operator's own choice on node's command line alone, in either spelling", () => {
    expect(serveHeapFlags(['--heap-growing-percent=100'])).toEqual([]);
    expect(serveHeapFlags(['--heap_growing_percent', '50'])).toEqual([]);
  });

  it('leaves a choice made in NODE_OPTIONS alone too (node does not list those in execArgv)', () => {
    expect(serveHeapFlags([], '--max-old-space-size=512 --heap-growing-percent=100')).toEqual([]);
    expect(serveHeapFlags([], '--max-old-space-size=512')).toEqual([
      `--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`,
    ]);
  });
});
