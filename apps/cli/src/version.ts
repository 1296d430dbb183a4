import { readFileSync } from 'node:fs';

/** Read from package.json next to dist/ at call time: no JSON import, so the bundle-free build stays simple. */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
