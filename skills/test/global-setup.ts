// The mcp-demo server is TypeScript; its tests start the compiled file. `pnpm test` through turbo builds first, but a
// direct `vitest run` might find dist/ missing or older than the source, so compile it here when that is the case.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = fileURLToPath(new URL('../mcp-demo/src/', import.meta.url));
const built = fileURLToPath(new URL('../mcp-demo/dist/server.js', import.meta.url));

function modifiedAt(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const newestSource = Math.max(...readdirSync(sourceDir).map((name) => modifiedAt(sourceDir + name)));
  if (modifiedAt(built) >= newestSource) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: packageDir, stdio: 'inherit' });
}
