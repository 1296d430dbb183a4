import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Exploratory report defects #2 (a value reaching a shell through `--`, `$SHELL`, a pipe or xargs ran unasked)
// and #10 (a value `@/path` in `curl -d {note}` made curl upload a local file).

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const tool = (name: string, entrypoint: string, param = 'text') => `
### ${name}
description: ${name}
entrypoint: ${entrypoint}
schema:
  type: object
  properties:
    ${param}: {type: string}
  required: [${param}]
`;

async function skill(name: string, tools: string): Promise<string> {
  const dir = join(box.dir.path, 'skills', name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${name} tools\nenabled_by_default: true\n---\n\n## Tools\n${tools}`,
  );
  return dir;
}

const SHELL_TOOLS: Record<string, string> = {
  dashdash: 'bash:sh -c -- {text}',
  shellvar: 'bash:$SHELL -c {text}',
  pipeshell: "bash:printf '%s\\n' {text} | $SHELL",
  viaxargs: 'bash:xargs sh -c <<< {text}',
  bashvar: 'bash:"$BASH" -c {text}',
  findexec: 'bash:find . -maxdepth 0 -exec sh -c -- {text} \\;',
};

describe('a value that reaches a shell is never run unasked (report #2)', { timeout: 60_000 }, () => {
  it('skills check reports every such template', async () => {
    const dir = await skill(
      'runner',
      Object.entries(SHELL_TOOLS)
        .map(([n, e]) => tool(n, e))
        .join(''),
    );
    const result = await runCli(['skills', 'check', dir], { env: box.env, cwd: box.cwd });
    for (const name of Object.keys(SHELL_TOOLS)) expect(result.stdout, name).toContain(`\`${name}\``);
    expect(result.stdout).not.toContain('0 errors, 0 warnings');
  });

  it('birdie run without --yes does not run the value as code', async () => {
    await skill(
      'runner',
      Object.entries(SHELL_TOOLS)
        .map(([n, e]) => tool(n, e))
        .join(''),
    );
    const marker = (name: string) => join(box.dir.path, `ran_${name}`);
    const calls = Object.keys(SHELL_TOOLS).map((name) => ({
      name,
      args: { text: name === 'viaxargs' ? `touch\${IFS}${marker(name)}` : `touch ${marker(name)}` },
    }));
    const script = join(box.dir.path, 'script.json');
    await writeFile(script, JSON.stringify({ replies: [{ tool_calls: calls }, { text: 'done' }] }));
    const env = { ...box.env, SHELL: '/bin/sh', LLM_VENDOR: 'scripted', LLM_SCRIPT: script };
    await runCli(['run', '--json', '--skills-dir', join(box.dir.path, 'skills'), 'go'], {
      env,
      cwd: box.cwd,
    });
    for (const name of Object.keys(SHELL_TOOLS)) expect(existsSync(marker(name)), name).toBe(false);
  });
});

describe('a value curl would read as a file name (report #10)', { timeout: 60_000 }, () => {
  it('birdie tool refuses "@/path" in curl -d and sends plain text as is', async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const secret = join(box.dir.path, 'id_rsa');
      await writeFile(secret, 'SECRET_SSH\n');
      const dir = await skill(
        'post',
        tool('post_note', `bash:curl -s -d {note} http://127.0.0.1:${port}/notes`, 'note'),
      );
      const cli = (args: object) =>
        runCli(['tool', 'post_note', '--skills-dir', join(dir, '..'), '--args', JSON.stringify(args)], {
          env: box.env,
          cwd: box.cwd,
        });
      const stolen = await cli({ note: `@${secret}` });
      expect(stolen.code).not.toBe(0);
      expect(stolen.stderr + stolen.stdout).toMatch(/curl would read it as a file/);
      expect(received.join('')).not.toContain('SECRET_SSH');

      const plain = await cli({ note: 'hello team' });
      expect(plain.code, plain.stderr).toBe(0);
      expect(received).toContain('hello team');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
