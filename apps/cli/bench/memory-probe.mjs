// Preloaded (`node --import`) into the `birdie serve` worker of serve-memory.mjs, which talks to it over the IPC
// channel: {type:'usage'} answers process.memoryUsage() (heap, external, array buffers beside the RSS) and the size
// of each V8 heap space ({type:'usage', gc:true}: after a full garbage collection, when the worker runs with
// --expose-gc); {type:'snapshot', path} writes a heap snapshot there (V8 collects garbage first) and
// answers when it is written. The channel is unref'd so it keeps nothing alive.
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

if (process.send) {
  process.on('message', (message) => {
    if (message?.type === 'usage') {
      if (message.gc === true && typeof globalThis.gc === 'function') globalThis.gc();
      const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
      process.send({ type: 'usage', usage: process.memoryUsage(), spaces });
    } else if (message?.type === 'snapshot')
      process.send({ type: 'snapshot', path: writeHeapSnapshot(message.path) });
  });
  // After the listener: adding a 'message' listener refs the channel again.
  process.channel?.unref();
}
