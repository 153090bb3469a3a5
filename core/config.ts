import { z } from 'zod';

// Every setting Weft reads from the environment, validated once at process start.
// Workflow code never reads this: configuration reaches workflows through their input.
const envSchema = z.object({
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/weft'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  WEFT_TASK_QUEUE: z.string().default('weft-tasks'),
  WEFT_GRPC_HOST: z.string().default('0.0.0.0'),
  WEFT_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50052),
  WEFT_LLM_BASE_URL: z.string().url().optional(),
  WEFT_LLM_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  WEFT_LLM_MODEL: z.string().default('gpt-5-mini'),
  WEFT_LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  WEFT_MAX_QUERY_BYTES: z.coerce.number().int().positive().default(32 * 1024),
  WEFT_SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(30_000),
});

export interface WeftConfig {
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  grpc: { host: string; port: number };
  llm: { baseURL?: string; apiKey: string; model: string; timeoutMs: number };
  limits: { maxQueryBytes: number };
  shutdownGraceMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WeftConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.WEFT_TASK_QUEUE },
    grpc: { host: e.WEFT_GRPC_HOST, port: e.WEFT_GRPC_PORT },
    llm: {
      baseURL: e.WEFT_LLM_BASE_URL,
      // OpenAI-compatible servers without auth still need a non-empty key for the client.
      apiKey: e.WEFT_LLM_API_KEY ?? e.OPENAI_API_KEY ?? 'unused',
      model: e.WEFT_LLM_MODEL,
      timeoutMs: e.WEFT_LLM_TIMEOUT_MS,
    },
    limits: { maxQueryBytes: e.WEFT_MAX_QUERY_BYTES },
    shutdownGraceMs: e.WEFT_SHUTDOWN_GRACE_MS,
  };
}
