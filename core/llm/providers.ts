// The seed's Provider enum, told from the endpoint a model is served from. Every provider is reached
// through the `openai` client at its OpenAI-compatible base URL.

export const providers = ['OPENAI', 'ANTHROPIC', 'GOOGLE', 'DEEPSEEK', 'QWEN', 'BEDROCK', 'OLLAMA', 'VLLM'] as const;
export type Provider = (typeof providers)[number];

const knownHosts: Array<[RegExp, Provider]> = [
  [/(^|\.)openai\.com$/, 'OPENAI'],
  [/(^|\.)anthropic\.com$/, 'ANTHROPIC'],
  [/(^|\.)googleapis\.com$/, 'GOOGLE'],
  [/(^|\.)deepseek\.com$/, 'DEEPSEEK'],
  [/(^|\.)(dashscope\.aliyuncs\.com|dashscope-intl\.aliyuncs\.com)$/, 'QWEN'],
  [/(^|\.)amazonaws\.com$/, 'BEDROCK'],
];

/** OpenAI without a base URL; a known host by name; Ollama by its default port; any other server is vLLM-style. */
export function providerOf(baseURL: string | undefined): Provider {
  if (!baseURL) return 'OPENAI';
  const url = new URL(baseURL);
  const known = knownHosts.find(([host]) => host.test(url.hostname));
  if (known) return known[1];
  return url.port === '11434' ? 'OLLAMA' : 'VLLM';
}
