import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
// Files curl would write (caches, -w %output{}) or read options from (-K) are in a scratch folder, never a real file or
// one anyone could plant in /tmp: should a refusal ever regress, curl runs as the test's user, writes its caches at exit
// whatever the connection did, and a planted config could name any file to write.
const scratch = mkdtempSync(join(tmpdir(), 'birdie-curl-scratch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// port 9 (discard) is closed here: a value that is not refused makes curl fail to connect, which counts as ran
const url = 'http://127.0.0.1:9/';

describe('values curl reads as a file of its own: upload, config', () => {
  it.each([
    [`curl -s -T {x} ${url}`, '-T', 'notes.txt'],
    [`curl -s -T{x} ${url}`, '-T', '/etc/passwd'],
    [`curl -sT {x} ${url}`, '-T', '/etc/passwd'],
    [`curl --upload-file {x} ${url}`, '--upload-file', '/etc/passwd'],
    [`curl --upload-file={x} ${url}`, '--upload-file', '/etc/passwd'],
    [`curl -K {x} ${url}`, '-K', join(scratch, 'evil.cfg')],
    [`curl -sK{x} ${url}`, '-K', join(scratch, 'evil.cfg')],
    [`curl --config {x} ${url}`, '--config', join(scratch, 'evil.cfg')],
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

// Review finding: curl 8.3's variables (`--variable %HOME`, `--variable name@file`, then `--expand-data '{{name}}'`)
// and the other options that name a file curl reads (`--etag-compare FILE`, `--netrc-file FILE`, `--cert FILE`, …)
// took a template value without a refusal; curl up to 8.5 also takes any unambiguous abbreviation (`--upload-fi`),
// and a form field's `;headers=@FILE` reads headers from a file.
describe('curl variables: --variable imports files and environment variables, --expand-* reads them', () => {
  it.each([
    [`curl -s --variable {x} --expand-data '{{{{HOME}}}}' ${url}`, '%HOME', '--variable'],
    [`curl -s --variable {x} ${url}`, '%HOME=none', '--variable'],
    [`curl -s --variable {x} ${url}`, 'n[0-99]@/etc/passwd', '--variable'],
    [`curl -s --variable %HOME --expand-data {x} ${url}`, '{{HOME}}', '--expand-data'],
    [`curl -s --variable %HOME --expand-data "note={x}" ${url}`, 'a {{HOME:trim}}', '--expand-data'],
    [`curl -s --variable %HOME --expand-data={x} ${url}`, '{{HOME}}', '--expand-data'],
    [`curl -s --variable %HOME --expand-url "http://127.0.0.1:9/{x}"`, '{{HOME:url}}', '--expand-url'],
    [`curl -s --variable %HOME --expand-header "X-Note: {x}" ${url}`, '{{HOME}}', '--expand-header'],
    [`curl -s --variable %HOME --expand-json {x} ${url}`, '{"a":"{{HOME:json}}"}', '--expand-json'],
    [`curl -s --variable %HOME --expand-user {x} ${url}`, 'me:{{HOME}}', '--expand-user'],
    // the value completes a `{{` the template starts, or starts one the template completes
    [`curl -s --variable %HOME --expand-data 'a{{'{x} ${url}`, '{HOME}}', '--expand-data'],
    [`curl -s --variable %HOME --expand-data {x}'{{HOME}}}}' ${url}`, 'a{', '--expand-data'],
  ])('%s refuses %s', async (template, value, option) => {
    const message = await run(template, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read`);
  });

  it.each([
    // --expand-X is X: its own file forms read files too
    [`curl -s --expand-data {x} ${url}`, '@/etc/passwd', '--expand-data'],
    [`curl -s --expand-json {x} ${url}`, '@/etc/passwd', '--expand-json'],
    [`curl -s --expand-header {x} ${url}`, '@/etc/passwd', '--expand-header'],
    [`curl -s --expand-form {x} ${url}`, 'f=@/etc/passwd', '--expand-form'],
    [`curl -s --expand-variable {x} ${url}`, 'n@/etc/passwd', '--expand-variable'],
    [`curl -s --expand-upload-file ./{x} ${url}`, 'notes.txt', '--expand-upload-file'],
    [`curl -s --expand-config {x} ${url}`, join(scratch, 'evil.cfg'), '--expand-config'],
  ])('%s refuses %s', async (template, value, option) => {
    const message = await run(template, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read`);
  });

  it.each([
    [`curl -s --variable {x} ${url}`, 'name=@/etc/passwd'],
    [`curl -s --expand-data {x} ${url}`, 'hello {x} and {"a":{"b":1}}'],
    [`curl -s --expand-data {x} ${url}`, '{"a":1}'],
    [`curl -s --expand-url "http://127.0.0.1:9/{x}"`, 'a/b'],
  ])('%s sends %s', async (template, value) => {
    expect(await run(template, value)).toBe('ran');
  });
});

describe('every curl option whose value names a file curl reads', () => {
  it.each([
    ['--etag-compare {x}', '/etc/passwd', '--etag-compare'],
    ['--etag-compare=./{x}', '../../etc/passwd', '--etag-compare'],
    ['--netrc-file {x}', '/home/me/.netrc', '--netrc-file'],
    ['-E {x}', '/home/me/client.pem', '-E'],
    ['-sE{x}', '/home/me/client.pem', '-E'],
    ['--cert {x}', '/home/me/client.pem', '--cert'],
    ['--key {x}', '/home/me/.ssh/id_rsa', '--key'],
    ['--pubkey {x}', '/home/me/.ssh/id_rsa.pub', '--pubkey'],
    ['--cacert {x}', '/tmp/evil-ca.pem', '--cacert'],
    ['--capath {x}', '/tmp', '--capath'],
    ['--crlfile {x}', '/etc/passwd', '--crlfile'],
    ['--proxy-cacert {x}', '/tmp/evil-ca.pem', '--proxy-cacert'],
    ['--proxy-capath {x}', '/tmp', '--proxy-capath'],
    ['--proxy-crlfile {x}', '/etc/passwd', '--proxy-crlfile'],
    ['--proxy-cert {x}', '/home/me/client.pem', '--proxy-cert'],
    ['--proxy-key {x}', '/home/me/.ssh/id_rsa', '--proxy-key'],
    ['--knownhosts {x}', '/tmp/hosts', '--knownhosts'],
    ['--hsts {x}', join(scratch, 'cache'), '--hsts'],
    ['--alt-svc {x}', join(scratch, 'cache'), '--alt-svc'],
    ['--ssl-sessions {x}', join(scratch, 'cache'), '--ssl-sessions'],
    ['--egd-file {x}', '/etc/passwd', '--egd-file'],
    ['--random-file {x}', '/etc/passwd', '--random-file'],
    ['--unix-socket {x}', '/var/run/docker.sock', '--unix-socket'],
    ['--abstract-unix-socket {x}', 'docker', '--abstract-unix-socket'],
  ])('curl -s %s refuses %s', async (options, value, option) => {
    const message = await run(`curl -s ${options} ${url}`, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read the file it names`);
  });

  it.each([
    ['--url {x}', '@/tmp/urls.txt', '--url'],
    ['--httpsig-key {x}', '@/home/me/key.hex', '--httpsig-key'],
    ['-F note={x}', 'hi;headers=@/etc/passwd', '-F'],
    ['-F "note=a {x}"', 'b; headers=</etc/passwd', '-F'],
    ['-F ={x}', '@/etc/passwd', '-F'],
    ['--form {x}', 'n=hi;type=text/plain;headers=@/etc/passwd', '--form'],
    ['-w {x}', `%output{${join(scratch, 'out')}}%{url}`, '-w'],
    ['-w "code %{{http_code}} {x}"', `%output{>>${join(scratch, 'out')}}`, '-w'],
  ])('curl -s %s refuses %s', async (options, value, option) => {
    const message = await run(`curl -s ${options} ${url}`, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read it as`);
  });

  it.each([
    // curl up to 8.5 (Debian 12's 7.88) takes any unambiguous abbreviation of a long option, in any case
    ['--upload-fi {x}', '/etc/passwd'],
    ['--conf {x}', join(scratch, 'evil.cfg')],
    ['--etag-comp {x}', '/etc/passwd'],
    ['--netrc-f {x}', '/home/me/.netrc'],
    ['--data-b {x}', '@/etc/passwd'],
    ['--DATA-BINARY {x}', '@/etc/passwd'],
    ['--write-o {x}', '@/etc/passwd'],
  ])('curl -s %s refuses %s', async (options, value) => {
    expect(await run(`curl -s ${options} ${url}`, value)).toMatch(/nothing was run/);
  });

  it('a value in two places is checked against both (the second is not forgotten)', async () => {
    const message = await run(`curl -s -w {x} -T {x} ${url}`, '/etc/passwd');
    expect(message).toContain('after -T curl would read the file it names');
  });

  it.each([
    // options that only write a file stay the approval rules' matter, like -o
    ['--etag-save {x}', join(scratch, 'etag.txt')],
    // an option that is a prefix of a file option is itself, not an abbreviation
    ['--proxy {x}', 'http://127.0.0.1:9'],
    ['--cert-type {x}', 'PEM'],
    ['--key-type {x}', 'PEM'],
    ['-F note={x}', 'hi;type=text/plain'],
    ['-F note={x}', 'a headers line'],
    ['-w {x}', 'took %{time_total}'],
    ['--url {x}', 'http://127.0.0.1:9/'],
  ])('curl -s %s sends %s', async (options, value) => {
    expect(await run(`curl -s ${options} ${url}`, value)).toBe('ran');
  });
});

describe('review: what curl reads that the first table missed', () => {
  it.each([
    // a bundle may hold curl's value-free options that are not letters (-0 … -6, -#, -:)
    ['-4T {x}', '/etc/hostname', '-T'],
    ['-#d {x}', '@/etc/hostname', '-d'],
    ['-0F {x}', 'n=@/etc/hostname', '-F'],
    ['-:K{x}', join(scratch, 'none.cfg'), '-K'],
  ])('curl -s %s refuses %s', async (options, value, option) => {
    const message = await run(`curl -s ${options} ${url}`, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read`);
  });

  it.each([
    // the template writes `headers=` and the value completes the file reference
    ['-F "n=hi;headers={x}"', '@/etc/hostname', '-F'],
    ['-F "n=hi;head{x}"', 'ers=</etc/hostname', '-F'],
    // the template writes `%output` and the value opens its file
    ['-w "%output{x}"', `{${join(scratch, 'out')}}`, '-w'],
  ])('curl -s %s refuses %s', async (options, value, option) => {
    const message = await run(`curl -s ${options} ${url}`, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read it as`);
  });

  it('a `--` that is the value of the option before it does not end the options', async () => {
    const message = await run(`curl -s -d -- -T {x} ${url}`, '/etc/hostname');
    expect(message).toContain('after -T curl would read the file it names');
  });

  it('a `--` after a complete option ends them: what follows is a URL', async () => {
    expect(await run('curl -s -- {x}', 'http://127.0.0.1:9/-T')).toBe('ran');
  });

  it.each([
    ['--pinnedpubkey {x}', '/etc/hostname', '--pinnedpubkey'],
    ['--proxy-pinnedpubkey {x}', '/etc/hostname', '--proxy-pinnedpubkey'],
    ['--engine {x}', join(scratch, 'engine.so'), '--engine'],
  ])('curl -s %s refuses %s', async (options, value, option) => {
    const message = await run(`curl -s ${options} ${url}`, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read the file it names`);
  });

  it('a pinned key given as hashes is text, not a file', async () => {
    expect(
      await run(`curl -s --pinnedpubkey {x} ${url}`, 'sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE='),
    ).toBe('ran');
  });
});

// Defect: `curl -z VALUE` compares against a date, but a value curl cannot read as a date names a file whose
// modification time it sends instead (curl tries a date first, then a file); the file-reading table did not list -z.
describe('curl -z/--time-cond: a value that is not a date names a file curl reads', () => {
  const file = join(scratch, 'stamp');
  beforeAll(() => writeFileSync(file, ''));

  it.each([
    [`curl -s -z {x} ${url}`, '-z', file],
    [`curl -s -z{x} ${url}`, '-z', file],
    [`curl -sz {x} ${url}`, '-z', file],
    [`curl -s --time-cond {x} ${url}`, '--time-cond', file],
    [`curl -s --time-cond={x} ${url}`, '--time-cond', file],
    [`curl -s --time-c {x} ${url}`, '--time-c', file],
    // curl's `-` (unmodified since) and `=` prefixes take a file as well
    [`curl -s -z {x} ${url}`, '-z', `-${file}`],
    [`curl -s -z {x} ${url}`, '-z', `=${file}`],
    // not a date curl reads: a file of that name
    [`curl -s -z {x} ${url}`, '-z', 'yesterday'],
    [`curl -s -z {x} ${url}`, '-z', '2024-01-01'],
    [`curl -s -z "./{x}" ${url}`, '-z', '20240101'],
  ])('%s refuses %s', async (template, option, value) => {
    const message = await run(template, value);
    expect(message).toMatch(/nothing was run/);
    expect(message).toContain(`after ${option} curl would read the file it names`);
  });

  it.each([
    [`curl -s -z {x} ${url}`, 'Sun, 06 Nov 1994 08:49:37 GMT'],
    [`curl -s -z {x} ${url}`, 'Sunday, 06-Nov-1994 08:49:37 GMT'],
    [`curl -s -z {x} ${url}`, 'Sun Nov  6 08:49:37 1994'],
    [`curl -s -z {x} ${url}`, '6 Nov 1994'],
    [`curl -s -z {x} ${url}`, '20240101'],
    [`curl -s -z "-{x}" ${url}`, '20240101'],
    [`curl -s --time-cond {x} ${url}`, '+1 Jan 2024 10:00 UTC'],
    [`curl -s -z "{x} GMT" ${url}`, '06 Nov 1994 08:49:37'],
  ])('%s sends the date %s', async (template, value) => {
    expect(await run(template, value)).toBe('ran');
  });
});
