import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProviderError } from '../errors.js';

/**
 * Where a LangChain integration package is imported from, in this order: birdie's own install (the packages beside
 * this one: in the CLI, its `node_modules`), then the user's integrations folder (an npm project, by default
 * `~/.birdie/integrations`), where `npm install --prefix <folder> <package>` adds one without touching birdie.
 */
export interface IntegrationPlaces {
  /** The user's integrations folder (absolute); without it only birdie's own install is searched. */
  integrationsDir?: string;
}

export type Found = { where: 'own' | 'integrations'; module: Record<string, unknown> };

/** Imports `specifier` (a package name or an absolute file path) from the first place that has it. */
export async function importIntegration(specifier: string, places: IntegrationPlaces): Promise<Found> {
  if (isAbsolute(specifier)) return { where: 'own', module: await import(pathToFileURL(specifier).href) };
  const own = await importOwn(specifier);
  if (own) return { where: 'own', module: own };
  if (places.integrationsDir) {
    const entry = await packageEntry(places.integrationsDir, specifier);
    if (entry) return { where: 'integrations', module: await import(pathToFileURL(entry).href) };
  }
  throw missingIntegration(specifier, places);
}

/** True when birdie's own install has the package (then LangChain's `initChatModel` can import it too). */
export async function ownInstallHas(specifier: string): Promise<boolean> {
  return (await importOwn(specifier)) !== undefined;
}

export function missingIntegration(packageName: string, places: IntegrationPlaces): ProviderError {
  const command = places.integrationsDir
    ? `npm install --prefix ${shellWord(places.integrationsDir)} ${packageName}`
    : `npm install ${packageName}`;
  const where = places.integrationsDir
    ? ` (birdie imports LangChain integrations from its own install, then from ${places.integrationsDir})`
    : '';
  return new ProviderError('missing-package', `${packageName} is not installed: run \`${command}\`${where}`, {
    packageName,
  });
}

async function importOwn(specifier: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    if (isNotFound(error, specifier)) return undefined;
    throw error;
  }
}

function isNotFound(error: unknown, specifier: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(specifier);
}

/**
 * The ES module entry of `name` installed under `dir/node_modules`: `exports["."]` with the `import`, `node` or
 * `default` condition, else `module`, `main`, `index.js`. Enough for LangChain's packages; undefined when absent.
 */
async function packageEntry(dir: string, name: string): Promise<string | undefined> {
  const root = join(dir, 'node_modules', name);
  let manifest: { exports?: unknown; module?: unknown; main?: unknown };
  try {
    manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const target = exportTarget(manifest.exports);
  const relative =
    target ??
    (typeof manifest.module === 'string' ? manifest.module : undefined) ??
    (typeof manifest.main === 'string' ? manifest.main : 'index.js');
  return join(root, relative);
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (exports === null || typeof exports !== 'object') return undefined;
  const map = exports as Record<string, unknown>;
  const dot = Object.keys(map).some((key) => key.startsWith('.')) ? map['.'] : map;
  return conditional(dot);
}

function conditional(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const map = value as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const found = conditional(map[condition]);
    if (found) return found;
  }
  return undefined;
}

function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
