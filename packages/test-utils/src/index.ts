export { type BashTracer, bashTracer } from './bash-trace.js';
export {
  type Browser,
  type BrowserContext,
  BrowserUnavailableError,
  chromiumPath,
  isBrowserUnavailableError,
  launchChromium,
  type Page,
} from './browser.js';
export { type Child, spawnModule } from './child.js';
export {
  CorpusMissingError,
  corpusRoot,
  isCorpusMissingError,
  REPO_ROOT,
  testsReadingCorpus,
} from './corpus.js';
export {
  CRASH_SAFE_SETTINGS,
  type PostgresServer,
  PostgresUnavailableError,
  type StartPostgresOptions,
  startPostgres,
} from './postgres.js';
export { makeTempDir, writeTree } from './temp-dir.js';
