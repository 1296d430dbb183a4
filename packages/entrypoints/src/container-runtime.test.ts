import { describe, expect, it } from 'vitest';
import { type ContainerRun, containerArgv } from './container-runtime.js';

const base: ContainerRun = {
  runtime: 'docker',
  image: 'alpine',
  argv: ['echo', '-n'],
  name: 'birdie-1-abc',
  cwd: '/home/me/project',
  writable: false,
  network: false,
  env: [],
};

describe('containerArgv', () => {
  it('a non-root user keeps ownership of /work: --user for docker, --userns=keep-id for rootless podman', () => {
    const user = { uid: 1000, gid: 1001 };
    expect(containerArgv({ ...base, user })).toContain('--user=1000:1001');
    const podman = containerArgv({ ...base, runtime: 'podman', user });
    expect(podman).toContain('--userns=keep-id');
    expect(podman.join(' ')).not.toContain('--user=');
    expect(containerArgv(base).some((a) => a.startsWith('--user'))).toBe(false);
  });

  it('ends with the image and the command words, untouched', () => {
    expect(containerArgv(base).slice(-3)).toEqual(['alpine', 'echo', '-n']);
  });
});
