// Types for the tests that read which packages the bundle leaves to node_modules.
import type { RolldownOptions } from 'rolldown';

export declare const NATIVE: string[];
export declare const RUNTIME_REQUIRED: string[];
declare const config: RolldownOptions;
export default config;
