// `@birdie/store/limits`: the store's caps that a caller checks before it reaches the store (a settings schema
// refusing a value the store would refuse every turn). No imports: loading it must not load the database.

/** The most an admission's limit may be: each admission is a row the store keeps for its window. */
export const MAX_ADMISSION_LIMIT = 100_000;
