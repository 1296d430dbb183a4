import { describe, expect, it } from 'vitest';
import { moduleTargetOf } from './index.js';

describe('moduleTargetOf: the module a node: or python: entrypoint names', () => {
  it('reads node:PATH#export, a missing export being the default one', () => {
    expect(moduleTargetOf('node:lib/tools.mjs#run')).toEqual({
      scheme: 'node',
      modulePath: 'lib/tools.mjs',
      exportName: 'run',
    });
    expect(moduleTargetOf(' node:tool.mjs ')).toEqual({
      scheme: 'node',
      modulePath: 'tool.mjs',
      exportName: 'default',
    });
    // The last `#` separates the export: a module path may hold one.
    expect(moduleTargetOf('node:a#b.mjs#f')).toMatchObject({ modulePath: 'a#b.mjs', exportName: 'f' });
  });

  it('reads python:MODULE.function with a dotted module', () => {
    expect(moduleTargetOf('python:pkg.weather.get')).toEqual({
      scheme: 'python',
      moduleName: 'pkg.weather',
      functionName: 'get',
    });
  });

  it('is undefined for malformed targets and other schemes, as the schemes refuse them', () => {
    for (const entrypoint of [
      'node:#f',
      'node:x.mjs#1f',
      'python:nodot',
      'python:a-b.c',
      'python:.f',
      'bash:ls',
      'http:get https://x',
    ]) {
      expect(moduleTargetOf(entrypoint), entrypoint).toBeUndefined();
    }
  });
});
