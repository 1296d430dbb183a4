// Run from packages/providers after `pnpm build`: node examples/quickstart.mjs
import { fileURLToPath } from 'node:url';
import { createChatModel, describeProvider, ProviderError, resolveProviderConfig } from '@birdie/providers';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

const script = fileURLToPath(new URL('./weather-script.json', import.meta.url));
const { config, sources } = await resolveProviderConfig({
  env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
});
console.log('provider:', describeProvider(config).label);
console.log('sources: ', sources);

const getWeather = tool(async ({ city }) => `21 °C, sunny in ${city}`, {
  name: 'get_weather',
  description: 'Current weather for a city',
  schema: z.object({ city: z.string() }),
});
const model = (await createChatModel(config)).bindTools([getWeather]);

const question = new HumanMessage("What's the weather in Lyon?");
const ai = await model.invoke([question]);
console.log(
  'tool calls:',
  ai.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`),
);
const results = await Promise.all(
  ai.tool_calls.map(
    async (c) => new ToolMessage({ content: await getWeather.invoke(c.args), tool_call_id: c.id }),
  ),
);

const tokens = [];
let usage;
for await (const chunk of await model.stream([question, ai, ...results])) {
  if (chunk.content) tokens.push(chunk.content);
  usage = chunk.usage_metadata ?? usage;
}
console.log('streamed: ', tokens.length, 'chunks →', tokens.join(''));
console.log('usage:    ', usage);

try {
  await resolveProviderConfig({ env: { LLM_VENDOR: 'anthropic' } });
} catch (error) {
  if (error instanceof ProviderError) console.log(`error:     [${error.code}] ${error.message}`);
}
