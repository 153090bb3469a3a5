import { z } from 'zod';

// The model settings (read with the rest in core/config.ts): one provider described by WEFT_LLM_* unless a
// catalog file names several, the aliases and cache, how transcripts are summarised, and the demo model's server.

export const modelEnvSchema = z.object({
  WEFT_LLM_BASE_URL: z
    .string()
    .url()
    .optional()
    .describe('Without a model catalog: any OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, ...). Unset: OpenAI.'),
  WEFT_LLM_API_KEY: z.string().optional().describe("Without a model catalog: the provider's API key (wins over OPENAI_API_KEY)."),
  OPENAI_API_KEY: z
    .string()
    .optional()
    .describe("Without a model catalog: the provider's API key. With no provider configured at all, `make up` starts the demo model."),
  WEFT_LLM_MODEL: z.string().default('gpt-5-mini').describe('Without a model catalog: the model of every tier not set on its own.'),
  WEFT_MODEL_SMALL: z
    .string()
    .optional()
    .describe("Without a model catalog: the SMALL tier's model (complexity analysis, memory notes, summaries). Default: WEFT_LLM_MODEL."),
  WEFT_MODEL_MEDIUM: z.string().optional().describe("Without a model catalog: the MEDIUM tier's model (planning, most agents). Default: WEFT_LLM_MODEL."),
  WEFT_MODEL_LARGE: z.string().optional().describe("Without a model catalog: the LARGE tier's model. Default: WEFT_LLM_MODEL."),
  WEFT_MODEL_CATALOG: z
    .string()
    .optional()
    .describe(
      'A model catalog file (YAML: providers, models, tiers, prices); see `config/models.example.yaml` and `config/providers/`. Without one, the WEFT_LLM_* settings describe one provider.',
    ),
  WEFT_MODEL_ALIASES: z
    .string()
    .optional()
    .describe(
      "JSON object of model names clients may use for configured models. Default: `venice-uncensored` (ai.AIService's default) names the MEDIUM tier's model.",
    ),
  WEFT_EMBEDDING_MODEL: z.string().default('text-embedding-3-small').describe('Without a model catalog: the model EmbedText uses by default.'),
  WEFT_LLM_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(3600)
    .describe("How long a cached model answer is served (LLMService `enable_caching`, a task's `context.enable_caching`)."),
  WEFT_LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000).describe('Without a model catalog: the timeout of one model call.'),
  WEFT_HISTORY_COMPRESS_AT_TOKENS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(32_000)
    .describe("An agent's transcript over this many tokens has its older turns summarised (0: never)."),
  WEFT_HISTORY_KEEP_TURNS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(4)
    .describe('The newest complete turns kept word for word when a transcript is summarised.'),
  WEFT_HISTORY_MODEL: z.string().optional().describe('The model (catalog id or alias) that writes transcript summaries. Default: the SMALL tier.'),
  WEFT_DEMO_MODEL_PORT: z.coerce.number().int().min(0).max(65535).optional().describe("The demo model server's port (`make up` uses 8090)."),
  WEFT_DEMO_MODEL_HOST: z.string().optional().describe('The address the demo model server binds. Default: `127.0.0.1`.'),
});
