import { RuntimeError, UsageError } from '@birdie/runtime';
import { StoreError } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { CliError } from '../io.js';
import { failureJson, printFailureJson, wasPrinted } from './failure-json.js';

// The `error` of every `--json` failure (the CLI's tests through the binary: test/json-failures.test.ts); here the
// failures no store of a test makes easily.

describe('failureJson', () => {
  it('a store failure behind the runtime error that words it: the store code, message and hint', () => {
    const store = new StoreError('read-only', 'cannot write /h/birdie.db: it is on a read-only file system', {
      hint: 'remount the file system of /h read-write',
    });
    expect(failureJson(new RuntimeError('cannot write … (remount …)', 1, { cause: store }))).toEqual({
      code: 'read-only',
      message: 'cannot write /h/birdie.db: it is on a read-only file system',
      hint: 'remount the file system of /h read-write',
    });
  });

  it('a busy session keeps the store code session-busy, its hint saying --wait', () => {
    const store = new StoreError('session-busy', 'session s1 is in use by process 7', {
      hint: 'wait for it',
    });
    expect(failureJson(new RuntimeError('session s1 is in use', 3, { cause: store }))).toEqual({
      code: 'session-busy',
      message: 'session s1 is in use by process 7',
      hint: 'wait for it; or pass --wait SECONDS',
    });
  });

  it('a usage error is usage with its own sentence, even with a store error behind it', () => {
    const store = new StoreError('not-owner', 'session s1 belongs to another user');
    expect(
      failureJson(new UsageError('session "s1" belongs to user bob; pass --user bob', { cause: store })),
    ).toEqual({ code: 'usage', message: 'session "s1" belongs to user bob; pass --user bob' });
  });

  it("the CLI's own failure is failure; anything else is internal", () => {
    expect(failureJson(new CliError('no run 4'))).toEqual({ code: 'failure', message: 'no run 4' });
    expect(failureJson(new TypeError('x is undefined'))).toEqual({
      code: 'internal',
      message: 'x is undefined',
    });
  });
});

describe('printFailureJson', () => {
  it("prints one line, the command's fields first, and remembers the failure it printed", () => {
    let out = '';
    const stdout = {
      write: (text: string) => {
        out += text;
        return true;
      },
    } as never;
    const error = new CliError('broken');
    expect(wasPrinted(error)).toBe(false);
    printFailureJson(stdout, error, { location: '/h/birdie.db', ok: false });
    expect(out).toBe(
      '{"location":"/h/birdie.db","ok":false,"error":{"code":"failure","message":"broken"}}\n',
    );
    expect(wasPrinted(error)).toBe(true);
  });
});
