export { PostgresCheckpointer } from './checkpointer/saver.js';
export { migratePostgres, postgresMigrationStatus } from './migrate.js';
export { MIGRATIONS, type MigrationStatus } from './migrations.js';
export { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from './store.js';
