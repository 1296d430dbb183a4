/** Sends `console.log`/`info`/`debug` (a library's stray output) to stderr while a protocol owns stdout. */
export function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}
