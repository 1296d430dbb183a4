import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A small deterministic PRNG, so every run benchmarks the same files. */
export function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the agent reads files and runs commands when the user asks for a change it checks the output first then writes a short summary of what happened with links to sources and notes on errors timeouts retries and limits'.split(
    ' ',
  );

function sentence(rand, min = 6, max = 18) {
  const n = min + Math.floor(rand() * (max - min));
  const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return `${words.join(' ')}.`;
}

function paragraph(rand) {
  return Array.from({ length: 2 + Math.floor(rand() * 4) }, () => sentence(rand)).join(' ');
}

const ENTRYPOINTS = [
  (p) => `bash:grep -rn "{${p}}" . | head -n 50 # search`,
  (p) => `bash:echo "{${p}}" > out.txt`,
  (p) => `http:get https://api.example.com/v1/items?q={${p}}`,
  (p) => `http:post https://api.example.com/v1/items/{${p}}`,
  () => 'node:./tools/run.js',
  () => 'python:tools.module.function',
];

function tool(rand, index) {
  const name = `tool_${index}_${Math.floor(rand() * 1e6).toString(36)}`;
  const props = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) => `arg${i}`);
  const lines = [`### ${name}`, `description: ${sentence(rand, 10, 30)}`];
  if (rand() < 0.3) lines.push(`  ${sentence(rand)}`);
  lines.push(`entrypoint: ${ENTRYPOINTS[Math.floor(rand() * ENTRYPOINTS.length)](props[0])}`);
  if (rand() < 0.3) lines.push(`timeout: ${5 + Math.floor(rand() * 60)}`);
  if (rand() < 0.25) {
    const properties = Object.fromEntries(
      props.map((p) => [p, { type: 'string', description: sentence(rand, 3, 8) }]),
    );
    lines.push(
      'schema:',
      '```json',
      JSON.stringify({ type: 'object', properties, required: [props[0]] }),
      '```',
    );
  } else {
    lines.push('schema:', '  type: object', '  properties:');
    for (const p of props) {
      const type = rand() < 0.7 ? 'string' : 'integer';
      lines.push(`    ${p}:`, `      type: ${type}`, `      description: ${sentence(rand, 3, 8)}`);
      if (type === 'integer' && rand() < 0.5) lines.push(`      default: ${Math.floor(rand() * 10)}`);
    }
    lines.push(`  required: [${props[0]}]`);
  }
  return lines.join('\n');
}

function knowledgeBody(rand) {
  const target = 2048 + Math.floor(rand() * 6144);
  const parts = [`# ${sentence(rand, 2, 5).slice(0, -1)}`];
  let size = 0;
  while (size < target) {
    const r = rand();
    let part;
    if (r < 0.15) part = `## ${sentence(rand, 2, 5).slice(0, -1)}`;
    else if (r < 0.3)
      part = Array.from({ length: 3 + Math.floor(rand() * 4) }, () => `- ${sentence(rand, 4, 10)}`).join(
        '\n',
      );
    else if (r < 0.4)
      part = [
        '```bash',
        `ls -la ${WORDS[Math.floor(rand() * WORDS.length)]}`,
        'git status --short',
        '```',
      ].join('\n');
    else part = paragraph(rand);
    parts.push(part);
    size += part.length + 2;
  }
  return parts.join('\n\n');
}

/** Writes `count` skills (half tool skills with 1–6 tools, half knowledge skills of 2–8 KB) under `root`. */
export async function generateSkills(root, count, seed = 42) {
  const rand = random(seed);
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(4, '0')}`;
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    const front = [
      '---',
      `name: ${name}`,
      `description: ${sentence(rand, 8, 25)}`,
      `tags: [${WORDS[i % WORDS.length]}, bench]`,
      ...(rand() < 0.3
        ? [`triggers: [${WORDS[(i * 7) % WORDS.length]}, ${WORDS[(i * 3) % WORDS.length]}]`]
        : []),
      ...(rand() < 0.2 ? ['enabled_by_default: false'] : []),
      '---',
      '',
    ].join('\n');
    let text;
    if (i % 2 === 0) {
      const tools = Array.from({ length: 1 + Math.floor(rand() * 6) }, (_, t) => tool(rand, t));
      text = `${front}${rand() < 0.5 ? `${paragraph(rand)}\n\n` : ''}## Tools\n\n${tools.join('\n\n')}\n`;
    } else {
      text = `${front}${knowledgeBody(rand)}\n`;
      if (rand() < 0.3) await writeFile(join(dir, 'reference.md'), paragraph(rand));
    }
    bytes += Buffer.byteLength(text);
    await writeFile(join(dir, 'SKILL.md'), text);
  }
  return { bytes };
}
