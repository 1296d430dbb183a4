import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** 60 tools in 6 skills (over the default budget of 40), one of them `stock_quote`. */
export async function manyTools(root: string): Promise<void> {
  const topics = ['invoices', 'tickets', 'orders', 'contacts', 'refunds', 'markets'];
  for (const [s, topic] of topics.entries()) {
    const blocks = Array.from({ length: 10 }, (_, i) => {
      const name = s === 5 && i === 0 ? 'stock_quote' : `${topic}_tool_${i}`;
      const description =
        name === 'stock_quote'
          ? 'Latest share price of a stock by its ticker symbol'
          : `Operation ${i} on ${topic} in the back office`;
      return `### ${name}\ndescription: ${description}\nentrypoint: node:tool.mjs#run\nschema:\n  type: object\n  properties:\n    symbol:\n      type: string\n`;
    });
    const dir = join(root, topic);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: ${topic}\ndescription: Tools for ${topic}\nenabled_by_default: true\n---\n\n## Tools\n\n${blocks.join('\n')}`,
    );
    await writeFile(
      join(dir, 'tool.mjs'),
      'export async function run(args) { return "quote " + args.symbol + ": 42"; }\n',
    );
  }
}
