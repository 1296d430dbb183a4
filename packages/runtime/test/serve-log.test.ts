import { PassThrough } from 'node:stream';
import { StoreError } from '@birdie/store/errors';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { failureEntry, linesToLog, logFormat, serveLog, terminalSafe } from '../src/serve-log.js';

const capture = () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { out, text: () => text };
};

describe('serveLog', () => {
  const at = () => new Date('2026-11-29T07:00:00.000Z');

  it('json: one object per line, time, level and msg first', () => {
    const c = capture();
    const log = serveLog(c.out, 'json', at);
    log({ level: 'info', msg: 'request', requestId: 'r1', status: 200 });
    log.flush();
    expect(c.text()).toBe(
      '{"time":"2026-11-29T07:00:00.000Z","level":"info","msg":"request","requestId":"r1","status":200}\n',
    );
  });

  it('text: the message as before, then key=value, quoting what needs it', () => {
    const c = capture();
    const log = serveLog(c.out, 'text', at);
    log({ level: 'info', msg: 'stopped (1 turn(s) finished, 0 cancelled)' });
    log({ level: 'warn', msg: 'request', method: 'GET', path: '/v1/x y', status: 404, userId: undefined });
    log.flush();
    expect(c.text()).toBe(
      'birdie serve: stopped (1 turn(s) finished, 0 cancelled)\nbirdie serve: request method=GET path="/v1/x y" status=404\n',
    );
  });

  it('writes the lines of one step of the event loop in one write, without being asked to flush', async () => {
    const writes: string[] = [];
    const out = new PassThrough();
    out.on('data', (d: Buffer) => writes.push(d.toString()));
    const log = serveLog(out, 'text', at);
    log({ level: 'info', msg: 'request', status: 200 });
    log({ level: 'info', msg: 'turn started' });
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['birdie serve: request status=200\nbirdie serve: turn started\n']);
    log({ level: 'info', msg: 'turn finished' });
    log.flush();
    log.flush();
    expect(writes.at(-1)).toBe('birdie serve: turn finished\n');
    expect(writes).toHaveLength(2);
  });

  it('linesToLog makes each written line an entry, however the writes are cut', async () => {
    const entries: unknown[] = [];
    const out = linesToLog((e) => entries.push(e));
    out.write('first li');
    out.write('ne\nsecond\n\n');
    await new Promise<void>((resolve) => out.end('last', resolve));
    expect(entries).toEqual([
      { level: 'warn', msg: 'first line' },
      { level: 'warn', msg: 'second' },
      { level: 'warn', msg: 'last' },
    ]);
  });

  it('logFormat takes text (the default) or json', () => {
    expect(logFormat(undefined)).toBe('text');
    expect(logFormat('json')).toBe('json');
    expect(() => logFormat('yaml')).toThrow(UsageError);
  });

  it('escapes in both formats what a terminal would act on: C0 and C1 controls, bidi overrides', () => {
    const text = capture();
    const log = serveLog(text.out, 'text', at);
    log({ level: 'warn', msg: 'skill \u001b[2Jx\nsecond line', path: '/a\u009b2J\u202eb' });
    log.flush();
    expect(text.text()).toBe('birdie serve: skill \\u001b[2Jx\nsecond line path="/a\\u009b2J\\u202eb"\n');
    const json = capture();
    const jsonLog = serveLog(json.out, 'json', at);
    jsonLog({ level: 'info', msg: 'request', path: '/a\u009b\u202e\u0000' });
    jsonLog.flush();
    expect(json.text().trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(json.text())).toMatchObject({ path: '/a\u009b\u202e\u0000' });
  });
});

describe('terminalSafe', () => {
  it('writes controls and invisible characters out, keeping newlines and tabs', () => {
    expect(terminalSafe('a\u001b[2J\tb\nc\u202ed\u009b')).toBe('a\\u001b[2J\tb\nc\\u202ed\\u009b');
  });
});

describe('failureEntry', () => {
  it("logs a store's failure as its one sentence and code, without a stack", () => {
    const error = new StoreError('unavailable', 'cannot reach the database server postgres://db: terminated');
    expect(failureEntry(error, 'turn log', { requestId: 'r1' })).toEqual({
      level: 'error',
      msg: 'turn log: cannot reach the database server postgres://db: terminated',
      errorCode: 'unavailable',
      requestId: 'r1',
    });
  });

  it("keeps a store failure's sentence on one line: a client's text in it cannot start a forged line", () => {
    const error = new StoreError('not-found', 'no session "x\nbirdie serve: request status=200"');
    expect(failureEntry(error, 'turn log').msg).toBe(
      'turn log: no session "x\\u000abirdie serve: request status=200"',
    );
  });

  it('logs anything else with its stack: a defect to report', () => {
    const entry = failureEntry(new TypeError('x is undefined'), 'GET /v1/sessions');
    expect(entry.msg).toMatch(/^GET \/v1\/sessions: TypeError: x is undefined\n\s+at /);
    expect(failureEntry('thrown text', 'turn log').msg).toBe('turn log: thrown text');
  });
});
