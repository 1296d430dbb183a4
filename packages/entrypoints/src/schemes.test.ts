import { describe, expect, it } from 'vitest';
import { EntrypointError } from './errors.js';
import { registerScheme, resolveEntrypoint, supportedSchemes, unregisterScheme } from './schemes.js';
import type { Entrypoint } from './types.js';

const skillDir = '/tmp';

describe('resolveEntrypoint', () => {
  it.each(['ftp:x', 'smtp:user@example.com', 'ssh:host ls'])(
    'rejects %j naming the supported schemes',
    (ep) => {
      const error = (() => {
        try {
          resolveEntrypoint(ep, { skillDir });
        } catch (e) {
          return e as EntrypointError;
        }
      })();
      expect(error?.code).toBe('unsupported-scheme');
      expect(error?.message).toContain(
        'supported: bash:, http:, node:, python:, builtin:, container:, grpc:',
      );
    },
  );

  it.each(['', '   ', 'ls -la', ':x', 'Bash:ls', '1x:y'])('rejects %j as bad-entrypoint', (ep) => {
    expect(() => resolveEntrypoint(ep, { skillDir })).toThrow(
      expect.objectContaining({ code: 'bad-entrypoint' }),
    );
  });

  it('needs a skill folder', () => {
    expect(() => resolveEntrypoint('bash:ls', { skillDir: '' })).toThrow(
      expect.objectContaining({ code: 'bad-entrypoint' }),
    );
  });

  it('reports the placeholders of a template', () => {
    const ep = resolveEntrypoint('bash:cp -- {from} {to} && ls {to}', { skillDir });
    expect(ep).toMatchObject({ scheme: 'bash', raw: false, placeholders: ['from', 'to'] });
    expect(resolveEntrypoint('  bash: {command} ', { skillDir }).raw).toBe(true);
  });
});

describe('registerScheme', () => {
  it('adds an application scheme that receives the target and the context', async () => {
    const seen: unknown[] = [];
    registerScheme('echo', (target, context): Entrypoint => {
      seen.push({
        target,
        scheme: context.scheme,
        entrypoint: context.entrypoint,
        skillDir: context.skillDir,
      });
      return {
        scheme: 'echo',
        raw: false,
        placeholders: [],
        run: async (args) => ({ output: `${target}:${JSON.stringify(args)}`, truncated: false }),
      };
    });
    try {
      expect(supportedSchemes()).toContain('echo');
      const ep = resolveEntrypoint('echo:hello', { skillDir });
      expect(await ep.run({ a: 1 })).toEqual({ output: 'hello:{"a":1}', truncated: false });
      expect(seen).toEqual([{ target: 'hello', scheme: 'echo', entrypoint: 'echo:hello', skillDir }]);
    } finally {
      expect(unregisterScheme('echo')).toBe(true);
    }
    expect(() => resolveEntrypoint('echo:hello', { skillDir })).toThrow(
      expect.objectContaining({ code: 'unsupported-scheme' }),
    );
  });

  it('lets an application provide a scheme of its own (ftp:)', () => {
    registerScheme('ftp', () => ({
      scheme: 'ftp',
      raw: false,
      placeholders: [],
      run: async () => ({ output: '', truncated: false }),
    }));
    try {
      expect(resolveEntrypoint('ftp:host/file', { skillDir }).scheme).toBe('ftp');
    } finally {
      unregisterScheme('ftp');
    }
  });

  it.each(['bash', 'http', 'node', 'python', 'builtin', 'container', 'grpc'])(
    'refuses to replace built-in %s',
    (name) => {
      expect(() => registerScheme(name, () => ({}) as Entrypoint)).toThrow(
        expect.objectContaining({ code: 'scheme-conflict' }),
      );
    },
  );

  it('refuses an invalid scheme name', () => {
    expect(() => registerScheme('Has Space', () => ({}) as Entrypoint)).toThrow(EntrypointError);
  });
});
