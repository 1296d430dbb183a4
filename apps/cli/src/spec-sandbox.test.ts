import { confinementOf } from '@birdie/entrypoints';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './spec.js';

// The schemes a tool's entrypoint may have; which of them the sandbox confines is the entrypoints package's to say.
const SCHEMES = ['bash', 'python', 'node', 'http', 'grpc', 'container'];

describe('what the help says the sandbox confines', () => {
  it('--sandbox names exactly the entrypoints it confines, and the node: tools it leaves in-process', () => {
    const confined = SCHEMES.filter((s) => confinementOf(`${s}:x`, {}, { sandbox: true }) === 'sandbox');
    expect(confined.length).toBeGreaterThan(0);
    for (const command of COMMANDS.filter((c) => c.options.sandbox)) {
      const help = command.options.sandbox!.help;
      for (const scheme of SCHEMES)
        expect(help.includes(`${scheme}:`), `${command.name} ${scheme}:`).toBe(confined.includes(scheme));
      expect(help).toContain("birdie's own node: tools");
    }
  });

  it('serve names the same entrypoints as always sandboxed', () => {
    const details = COMMANDS.find((c) => c.name === 'serve')!.details!;
    for (const scheme of ['bash', 'python', 'node']) expect(details).toContain(`${scheme}:`);
  });
});
