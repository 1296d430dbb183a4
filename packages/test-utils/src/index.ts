export { makeTempDir, writeTree } from './temp-dir.js';
export { PostgresUnavailableError, type PostgresServer, type StartPostgresOptions, startPostgres } from './postgres.js';
export { type Child, spawnModule } from './child.js';
