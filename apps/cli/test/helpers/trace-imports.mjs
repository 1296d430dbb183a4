// `node --import ./trace-imports.mjs …`: appends every module URL the program resolves to $BIRDIE_TRACE_FILE.
import { register } from 'node:module';

register('./import-hooks.mjs', import.meta.url);
