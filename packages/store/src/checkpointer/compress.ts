import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Preset deflate dictionary (format 1): the JSON boilerplate every serialised message,
 * checkpoint body and write record repeats. Small records (a 200-character message is
 * ~400 bytes of JSON) compress poorly on their own; with this dictionary the repeated
 * keys cost a few bytes. Part of the on-disk format: never edit, add a format 2 instead.
 */
const DICT_V1 = Buffer.from(
  [
    '"status":"success","artifact":"tool_call_chunks":[],"name":"type":"tool_call"',
    '{"source":"input","step":-1,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"tool_call_id":"call_',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"',
    '","content":"","tool_calls":[{"id":"call_","name":"","args":{}}],"invalid_tool_calls":[],',
    '"additional_kwargs":{},"response_metadata":{},"usage_metadata":{"input_tokens":,"output_tokens":,"total_tokens":',
    '{"p":"~__pregel_pull, __start__","w":[[0,"messages",["a",[1,1]]],[1,"branch:to:agent",["j","null"]]]}',
    '{"p":"~__pregel_pull, agent","w":[[0,"messages",["a",[1,1]]],[1,"branch:to:tools",["j","\\"agent\\""]]]}',
    '{"v":4,"ts":"2026-01-01T00:00:00.000Z","cv":{"__start__":,"messages":,"branch:to:agent":,"branch:to:tools":},',
    '"vs":{"__input__":{},"__start__":{"__start__":},"agent":{"branch:to:agent":},"tools":{"branch:to:tools":}},',
    '"vals":{"__pregel_tasks":["j","[]"],"__start__":["j","{\\"messages\\":[',
    '{"source":"loop","step":,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[',
  ].join(''),
);

const RAW = 0;
const DEFLATE_V1 = 1;

/** Encodes `data` as one format byte plus payload: dictionary-deflated when that is smaller. */
export function pack(data: Uint8Array): Buffer {
  if (data.length >= 48) {
    const deflated = deflateRawSync(data, { dictionary: DICT_V1, level: 6 });
    if (deflated.length + 8 < data.length) return Buffer.concat([Buffer.of(DEFLATE_V1), deflated]);
  }
  return Buffer.concat([Buffer.of(RAW), data]);
}

export function unpack(packed: Uint8Array): Buffer {
  const buf = Buffer.isBuffer(packed) ? packed : Buffer.from(packed);
  const payload = buf.subarray(1);
  switch (buf[0]) {
    case RAW:
      return payload;
    case DEFLATE_V1:
      return inflateRawSync(payload, { dictionary: DICT_V1 });
    default:
      throw new Error(`unknown blob format ${buf[0]}`);
  }
}

export function packText(text: string): Buffer {
  return pack(Buffer.from(text, 'utf8'));
}

export function unpackText(packed: Uint8Array): string {
  return unpack(packed).toString('utf8');
}
