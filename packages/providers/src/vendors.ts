export const VENDOR_NAMES = [
  'openai',
  'azure',
  'anthropic',
  'mistral',
  'gemini',
  'ollama',
  'scripted',
  'acp',
  'langchain',
] as const;
export type Vendor = (typeof VENDOR_NAMES)[number];

export interface VendorInfo {
  /** True when the vendor is configured by hand (a program, a module): interactive setup does not offer it. */
  advanced?: boolean;
  /** npm package that provides the chat model (`null`: built into this package). */
  package: string | null;
  /** LangChain class the model is an instance of. */
  className: string;
  /** Environment variables read for the API key, first match wins (empty: no key needed). */
  apiKeyEnv: readonly string[];
  /** Environment variables read for the base URL, first match wins. */
  baseUrlEnv: readonly string[];
  /** Model used when none is configured (`null`: the model must be given). */
  defaultModel: string | null;
  /** Base URL used when none is configured (`null`: the client's own default). */
  defaultBaseUrl: string | null;
  notes: string;
}

export const VENDORS: Readonly<Record<Vendor, VendorInfo>> = {
  openai: {
    package: '@langchain/openai',
    className: 'ChatOpenAI',
    apiKeyEnv: ['OPENAI_API_KEY'],
    baseUrlEnv: ['OPENAI_BASE_URL'],
    defaultModel: 'gpt-4o-mini',
    defaultBaseUrl: 'https://api.openai.com/v1',
    notes:
      'Chat Completions API; base_url also serves OpenAI-compatible servers (llama.cpp, vLLM, LM Studio).',
  },
  azure: {
    package: '@langchain/openai',
    className: 'AzureChatOpenAI',
    apiKeyEnv: ['AZURE_OPENAI_API_KEY'],
    baseUrlEnv: ['AZURE_OPENAI_ENDPOINT'],
    defaultModel: null,
    defaultBaseUrl: null,
    notes:
      'model = deployment name; base_url = https://<resource>.openai.azure.com (required); api_version defaults to 2024-10-21.',
  },
  anthropic: {
    package: '@langchain/anthropic',
    className: 'ChatAnthropic',
    apiKeyEnv: ['ANTHROPIC_API_KEY'],
    baseUrlEnv: ['ANTHROPIC_BASE_URL'],
    defaultModel: 'claude-sonnet-4-5',
    defaultBaseUrl: 'https://api.anthropic.com',
    notes: 'Messages API; without max_tokens the client picks a per-model default.',
  },
  mistral: {
    package: '@langchain/mistralai',
    className: 'ChatMistralAI',
    apiKeyEnv: ['MISTRAL_API_KEY'],
    baseUrlEnv: ['MISTRAL_BASE_URL'],
    defaultModel: 'mistral-large-latest',
    defaultBaseUrl: null,
    notes: 'La Plateforme; base_url maps to the SDK serverURL.',
  },
  gemini: {
    package: '@langchain/google-genai',
    className: 'ChatGoogleGenerativeAI',
    apiKeyEnv: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'],
    baseUrlEnv: [],
    defaultModel: 'gemini-2.5-flash',
    defaultBaseUrl: null,
    notes: 'Google AI Studio (Generative Language API), not Vertex AI; api_version selects v1/v1beta.',
  },
  ollama: {
    package: '@langchain/ollama',
    className: 'ChatOllama',
    apiKeyEnv: [],
    baseUrlEnv: ['OLLAMA_HOST', 'OLLAMA_BASE_URL'],
    defaultModel: 'llama3.2',
    defaultBaseUrl: 'http://127.0.0.1:11434',
    notes: 'Local server, no key; the model must be pulled first (`ollama pull <model>`).',
  },
  scripted: {
    package: null,
    className: 'ScriptedChatModel',
    apiKeyEnv: [],
    baseUrlEnv: [],
    defaultModel: 'scripted',
    defaultBaseUrl: null,
    notes:
      'Offline replies from a JSON script (`script`, or LLM_SCRIPT); for testing skills without spending tokens.',
  },
  acp: {
    package: '@agentclientprotocol/sdk',
    className: 'AcpChatModel',
    apiKeyEnv: [],
    baseUrlEnv: [],
    defaultModel: 'default',
    defaultBaseUrl: null,
    advanced: true,
    notes:
      'An Agent Client Protocol agent (command, args; stdio) as the model: it runs its own tools and asks before them. model picks one of its agents or models ("default": its own choice).',
  },
  langchain: {
    package: 'langchain',
    className: 'initChatModel',
    apiKeyEnv: [],
    baseUrlEnv: [],
    defaultModel: null,
    defaultBaseUrl: null,
    advanced: true,
    notes:
      'Any LangChain chat model: model "provider:name" through initChatModel, or module + class (+ options); packages from birdie\'s install or ~/.birdie/integrations.',
  },
};

export function isVendor(value: unknown): value is Vendor {
  return typeof value === 'string' && (VENDOR_NAMES as readonly string[]).includes(value);
}
