import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * What a consumer of the published package would miss to type-check its declarations: every package a `dist/**.d.ts`
 * imports must be a dependency (or peer dependency) of the package, and one that ships no declarations of its own
 * must have its `@types/` package among the dependencies (a devDependency is never installed for a consumer, who
 * then gets TS7016 under `strict`). Inside the workspace the dev dependencies are installed, so type-checking here
 * cannot see this; the manifest can.
 */
export function publishedTypeProblems(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const installed = { ...manifest.dependencies, ...manifest.peerDependencies };
  const problems: string[] = [];
  const require = createRequire(join(packageDir, 'package.json'));
  for (const name of new Set(declarationFiles(join(packageDir, 'dist')).flatMap(importedPackages))) {
    if (name === manifest.name || name.startsWith('node:') || NODE_BUILTINS.has(name)) continue;
    if (!(name in installed)) {
      problems.push(`${name} is imported by the declarations but is not a dependency`);
      continue;
    }
    const typesPackage = `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
    if (!shipsTypes(require, name) && !(typesPackage in installed))
      problems.push(`${name} ships no declarations and ${typesPackage} is not a dependency`);
  }
  return problems;
}

const NODE_BUILTINS = new Set(
  createRequire(import.meta.url)('node:module').builtinModules.map((m: string) => m.split('/')[0]),
);

function declarationFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? declarationFiles(join(dir, entry.name))
      : entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The packages a declaration file imports or references (`import … from`, `import('…')`, `export … from`). */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|reference types=)['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('/'))
    .map((s) =>
      s
        .split('/')
        .slice(0, s.startsWith('@') ? 2 : 1)
        .join('/'),
    );
}

function shipsTypes(require: NodeJS.Require, name: string): boolean {
  let manifestPath: string;
  try {
    manifestPath = require.resolve(`${name}/package.json`);
  } catch {
    return false;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (manifest.types || manifest.typings) return true;
  if (JSON.stringify(manifest.exports ?? {}).includes('"types"')) return true;
  return existsSync(join(manifestPath, '..', 'index.d.ts'));
}
