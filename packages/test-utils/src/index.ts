export { type Child, spawnModule } from './child.js';
export {
  type PostgresServer,
  PostgresUnavailableError,
  type StartPostgresOptions,
  startPostgres,
} from './postgres.js';
export { makeTempDir, writeTree } from './temp-dir.js';
