export { makeTempDir, writeTree } from './temp-dir.js';
