import { describe, expect, it } from 'vitest';
import { resolveEntrypoint } from '../src/index.js';

// Review finding: `curl -T FILE` uploads a file and `curl -K FILE` reads options from one, like `-d @FILE`; a
// template value there named a file for curl to read and was not refused.

const run = async (template: string, x: string) => {
  const resolved = resolveEntrypoint(`bash:${template}`, {
    skillDir: '/tmp',
    schema: { type: 'object', properties: { x: { type: 'string' } } },
  });
  return resolved.run({ x }).then(
    () => 'ran',
    (error: { code: string; message: string }) => (error.code === 'bad-argument' ? error.message : 'ran'),
  );
};
// port 9 (discard) is closed here: a value that is not refused makes curl fail to connect, which counts as ran
const url = 'http://127.0.0.1:9/';

describe('values curl reads as a file of its own: upload, config', () => {
  it.each([
    [`curl -s -T {x} ${url}`, '-T', 'notes.txt'],
    [`curl -s -T{x} ${url}`, '-T', '/etc/passwd'],
    [`curl -sT {x} ${url}`, '-T', '/etc/passwd'],
    [`curl --upload-file {x} ${url}`, '--upload-file', '/etc/passwd'],
    [`curl --upload-file={x} ${url}`, '--upload-file', '/etc/passwd'],
    [`curl -K {x} ${url}`, '-K', '/tmp/evil.cfg'],
    [`curl -sK{x} ${url}`, '-K', '/tmp/evil.cfg'],
    [`curl --config {x} ${url}`, '--config', '/tmp/evil.cfg'],
    [`curl --config={x} ${url}`, '--config', '-'],
    // anywhere in the word: the whole word is the file's name
    [`curl -T ./{x} ${url}`, '-T', '../../etc/passwd'],
    [`curl -T "up/{x}" ${url}`, '-T', '../../etc/passwd'],
    [`curl -T{x}.txt ${url}`, '-T', '/etc/passwd#'],
    [`curl -sT./{x} ${url}`, '-T', '../../etc/passwd'],
    [`curl --upload-file=./{x} ${url}`, '--upload-file', '../../etc/passwd'],
    [`curl -K name={x} ${url}`, '-K', 'x'],
  ])('%s refuses %s', async (template, option, value) => {
    const message = await run(template, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read the file it names`);
  });
});

describe('values curl reads as a file when they start with @: write-out', () => {
  it.each([
    [`curl -s -w {x} ${url}`, '@/etc/passwd'],
    [`curl -s -w{x} ${url}`, '@/etc/passwd'],
    [`curl -s --write-out {x} ${url}`, '@/etc/passwd'],
    [`curl -s --write-out={x} ${url}`, '@/etc/passwd'],
  ])('%s refuses %s', async (template, value) => {
    expect(await run(template, value)).toMatch(/curl would read it as a file.*nothing was run/);
  });

  it.each([
    [`curl -s -w {x} ${url}`, '%{http_code}'],
    // -o takes the next letters as its value: `-ow` writes to the file `w`, and the placeholder is the URL
    [`curl -s -ow {x}`, '@x'],
  ])('%s sends %s', async (template, value) => {
    expect(await run(template, value)).toBe('ran');
  });
});
