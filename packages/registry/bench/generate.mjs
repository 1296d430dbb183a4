// Deterministic generator for the benchmark: skill folders on disk, and a message to match.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export function rng(seed = 42) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ser',
  'ven',
  'tra',
  'dok',
  'pul',
  'gri',
  'ne',
  'bas',
  'hor',
  'qui',
  'zen',
  'fa',
  'ro',
];

export function makeWord(random, syllables = 1 + Math.floor(random() * 3)) {
  let word = '';
  for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  return word;
}

/** 10 triggers per skill: mostly 1–3 word phrases, one in ten of 3 characters or fewer (whole-word rule). */
export function makeTriggers(random, index) {
  const triggers = [];
  for (let t = 0; t < 10; t++) {
    if (t === 0) triggers.push(`x${index.toString(36).slice(-2)}`);
    else {
      const words = 1 + Math.floor(random() * 3);
      triggers.push(`${Array.from({ length: words }, () => makeWord(random)).join(' ')} ${index}-${t}`);
    }
  }
  return triggers;
}

function paragraph(random, bytes) {
  const words = [];
  let size = 0;
  while (size < bytes) {
    const word = makeWord(random);
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

/** 1,000 skills: 7 in 10 knowledge skills with 2–8 KB bodies, 3 in 10 tool skills with 1–6 tools. */
export async function writeSkills(root, count = 1000, seed = 1) {
  const random = rng(seed);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(4, '0')}`;
    const triggers = makeTriggers(random, i);
    const isTool = i % 10 < 3;
    const lines = [
      '---',
      `name: ${name}`,
      `description: Generated skill number ${i} for the registry benchmark`,
      `tags: [bench, group-${i % 20}]`,
      `enabled_by_default: ${i % 7 !== 0}`,
      'triggers:',
      ...triggers.map((trigger) => `  - "${trigger}"`),
      '---',
      '',
      `# Skill ${i}`,
      '',
    ];
    if (isTool) {
      lines.push('Prose before the tools.', '', '## Tools', '');
      const tools = 1 + (i % 6);
      for (let t = 0; t < tools; t++) {
        lines.push(
          `### tool_${i}_${t}`,
          `description: Tool ${t} of skill ${i}`,
          `entrypoint: bash:echo {text}`,
          'schema:',
          '  type: object',
          '  properties:',
          '    text:',
          '      type: string',
          '  required: [text]',
          '',
        );
      }
    } else {
      lines.push(paragraph(random, 2048 + Math.floor(random() * 6144)), '');
    }
    await mkdir(join(root, name), { recursive: true });
    await writeFile(join(root, name, 'SKILL.md'), lines.join('\n'));
  }
}

/** About `length` characters of words, with a trigger of every 37th skill mixed in now and then. */
export function makeMessage(random, length, triggersOf) {
  const parts = [];
  let size = 0;
  let k = 0;
  while (size < length) {
    let piece = makeWord(random);
    if (random() < 0.02 && triggersOf.length > 0) piece = triggersOf[(k++ * 37 + 5) % triggersOf.length][3];
    parts.push(piece);
    size += piece.length + 1;
  }
  return parts.join(' ').slice(0, length);
}

/** `count` agent files, each naming a few of the generated skills, their tools and two other agents. */
export async function writeAgents(root, count = 50, skillCount = 1000) {
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const skills = [0, 1, 2].map((k) => (i * 37 + k * 101) % skillCount);
    // Skills 0, 1 and 2 of every ten have tools (see writeSkills): name the first tool of one of them.
    const toolSkill = Math.floor(skills[0] / 10) * 10;
    const lines = [
      '---',
      `name: agent-${i}`,
      `description: Generated agent number ${i} for the registry benchmark`,
      'model: openai:gpt-4o-mini',
      `skills: [${skills.map((n) => `skill-${String(n).padStart(4, '0')}`).join(', ')}, skill-${String(toolSkill).padStart(4, '0')}]`,
      `approve: [tool_${toolSkill}_0]`,
      `subagents: [agent-${(i + 1) % count}, agent-${(i + 2) % count}]`,
      '---',
      '',
      `You are agent ${i}.`,
      '',
    ];
    await writeFile(join(root, `agent-${i}.md`), lines.join('\n'));
  }
}
