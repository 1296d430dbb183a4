import { describe, expect, it } from 'vitest';
import { Flow, isTainted } from './bash-flow.js';

describe('Flow', () => {
  it('follows values through copies, names and command output, to a fixed point', () => {
    const flow = new Flow(['v']);
    flow.assign('y', [{ kind: 'var', name: 'x' }]); // y=$x before x is assigned
    flow.assign('x', [{ kind: 'placeholder', name: 'v' }]);
    flow.assign('name', [{ kind: 'mention', name: 'x' }]); // name=x
    flow.assign('out', [{ kind: 'output', inner: [] }]); // out=$(date)
    flow.assign('copy', [{ kind: 'output', inner: [{ kind: 'var', name: 'y' }] }]); // copy=$(echo "$y")
    flow.solve();
    expect([...flow.valueOf('y').sources]).toEqual(['v']);
    expect(isTainted(flow.valueOf('name'))).toBe(false);
    expect([...flow.evaluationOf('name').sources]).toEqual(['v']);
    expect(flow.valueOf('out')).toMatchObject({ opaque: false, output: true });
    expect(flow.valueOf('copy').opaque).toBe(true);
  });

  it('treats positional parameters, input and run-time names as anything', () => {
    const flow = new Flow(['v']);
    flow.assignFromInput('line');
    flow.solve();
    for (const name of ['1', '@', '_', 'REPLY', 'line']) expect(flow.valueOf(name).opaque, name).toBe(true);
    expect(isTainted(flow.valueOf('HOME'))).toBe(false);
    flow.dynamic = true;
    expect(flow.valueOf('HOME').opaque).toBe(true);
  });

  it('finds nothing in a template without placeholders', () => {
    const flow = new Flow([]);
    flow.assignFromInput('line');
    flow.solve();
    expect(isTainted(flow.valueOf('line'))).toBe(false);
  });
});
