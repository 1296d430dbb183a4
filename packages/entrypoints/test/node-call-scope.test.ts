import { describe, expect, it } from 'vitest';
import { claimStrayFailure, NodeCallScope } from '../src/node-call-scope.js';

// Review: whatever a call of a module creates that outlives it (a queue or a timer the module keeps at its top level,
// made during the first call) stays in that call's async scope. Another call of the same module that uses it later
// leaves its failures there: they must not fail the first call while the module has another call running.

function running(where: string, module: string) {
  const scope = new NodeCallScope(where, module);
  const failed: Error[] = [];
  scope.failWith((error) => failed.push(error));
  return { scope, failed };
}

describe('a stray failure and the in-process call it is handed to', () => {
  it('fails the call whose scope it comes from when that call is the only one of its module running', () => {
    const a = running('s › a (node:tools.mjs#a)', '/skills/s/tools.mjs');
    const other = running('t › c (node:other.mjs#c)', '/skills/t/other.mjs');
    const claim = a.scope.run(() => claimStrayFailure(new Error('boom'), 'rejection'));
    expect(claim).toEqual({ tool: 's › a (node:tools.mjs#a)', failedCall: true });
    expect(a.failed.map((e) => e.message)).toEqual([
      's › a (node:tools.mjs#a) left a promise rejected that nothing handled: Error: boom',
    ]);
    expect(other.failed).toEqual([]);
    a.scope.failWith(undefined);
    other.scope.failWith(undefined);
  });

  it('fails no call while another call of the same module runs: the failure may be that one’s', () => {
    const a = running('s › a (node:tools.mjs#a)', '/skills/s/tools.mjs');
    const b = running('s › b (node:tools.mjs#b)', '/skills/s/tools.mjs');
    const claim = a.scope.run(() => claimStrayFailure(new Error('boom'), 'rejection'));
    expect(claim).toEqual({ tool: 's › a (node:tools.mjs#a)', failedCall: false, shared: true });
    expect(a.failed).toEqual([]);
    expect(b.failed).toEqual([]);
    // B is over: A is the module's only call again, and a failure from its scope is its own.
    b.scope.failWith(undefined);
    expect(a.scope.run(() => claimStrayFailure(new Error('later'), 'exception'))).toEqual({
      tool: 's › a (node:tools.mjs#a)',
      failedCall: true,
    });
    expect(a.failed).toHaveLength(1);
    a.scope.failWith(undefined);
  });
});
