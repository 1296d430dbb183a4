import type { Values } from './argv.js';
import type { Io } from './io.js';

/** What a command gets: its process's streams and environment, its flags and its positional arguments. */
export interface CommandContext {
  io: Io;
  values: Values;
  positionals: string[];
}
