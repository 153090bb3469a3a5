import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { modelTiers, type ModelTier } from '../orchestration/plan';
import { providerOf, providers, type Provider } from './providers';
import { tokenizers } from './tokenizer';
import type { SecretSource } from '../secrets';

// The model catalog: which providers Weft reaches, which models each serves in which tier, what they
// cost and can do. A YAML file (WEFT_MODEL_CATALOG) declares it; without one, the WEFT_LLM_* and
// WEFT_MODEL_* settings describe a single provider serving one model per tier at no recorded cost.

const count = z.number().int().nonnegative();
const price = z.number().nonnegative();

const providerSchema = z.strictObject({
  id: z.string().min(1),
  /** The seed's Provider enum value reported for calls to it; told from base_url when omitted. */
  kind: z.enum(providers).optional(),
  /** An OpenAI-compatible endpoint; OpenAI's own when omitted. */
  base_url: z.string().url().optional(),
  /** The environment variable holding its API key (keys never live in the catalog). */
  api_key_env: z.string().min(1).optional(),
  timeout_ms: z.number().int().positive().default(120_000),
  /** Per process; 0 is unlimited. */
  requests_per_minute: count.default(0),
  tokens_per_minute: count.default(0),
});

const modelSchema = z.strictObject({
  id: z.string().min(1),
  provider: z.string().min(1),
  tier: z.enum(modelTiers),
  context_window: count.default(0),
  /** USD per 1K tokens. */
  prompt_per_1k: price.default(0),
  completion_per_1k: price.default(0),
  /** USD per 1K prompt tokens the provider reports as served from its prompt cache; the prompt price when omitted. */
  cached_prompt_per_1k: price.optional(),
  supports_tools: z.boolean().default(true),
  supports_streaming: z.boolean().default(true),
  /** The provider enforces a JSON schema (response_format json_schema): Weft asks for plans and verdicts that way. */
  supports_json_schema: z.boolean().default(false),
  available: z.boolean().default(true),
  /** The tokenizer that counts this model's tokens for history compression and rate limits. */
  tokenizer: z.enum(tokenizers).default('o200k_base'),
});

const resilienceSchema = z.strictObject({
  /** Rounds over a request's candidate models; a round tries each candidate once. */
  max_attempts: z.number().int().positive().default(3),
  initial_backoff_ms: z.number().int().positive().default(250),
  max_backoff_ms: z.number().int().positive().default(10_000),
  /** A Retry-After longer than this is not waited for: the call fails with the provider's error. */
  max_retry_after_ms: z.number().int().nonnegative().default(30_000),
  /** Consecutive outages (5xx, unreachable, timeout) that open a provider's circuit. */
  breaker_failures: z.number().int().positive().default(5),
  /** How long an open circuit waits before letting one probe call through. */
  breaker_half_open_after_ms: z.number().int().positive().default(30_000),
});

const catalogSchema = z
  .strictObject({
    providers: z.array(providerSchema).min(1),
    models: z.array(modelSchema).min(1),
    embedding: z.strictObject({ provider: z.string().min(1), model: z.string().min(1) }),
    resilience: resilienceSchema.default(resilienceSchema.parse({})),
  })
  .superRefine((catalog, ctx) => {
    const providerIds = new Set<string>();
    catalog.providers.forEach((p, i) => {
      if (providerIds.has(p.id)) ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: `provider "${p.id}" is declared twice` });
      providerIds.add(p.id);
    });
    const models = new Set<string>();
    catalog.models.forEach((m, i) => {
      if (!providerIds.has(m.provider))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'provider'], message: `model "${m.id}" names unknown provider "${m.provider}"` });
      const key = `${m.id}@${m.tier}`;
      if (models.has(key)) ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `model "${m.id}" is declared twice in tier ${m.tier}` });
      models.add(key);
    });
    if (!providerIds.has(catalog.embedding.provider)) {
      ctx.addIssue({ code: 'custom', path: ['embedding', 'provider'], message: `embedding names unknown provider "${catalog.embedding.provider}"` });
    }
  });

type CatalogFile = z.infer<typeof catalogSchema>;
export type CatalogProvider = CatalogFile['providers'][number] & { kind: Provider; apiKey: string };
export type CatalogModel = CatalogFile['models'][number];
export type Resilience = CatalogFile['resilience'];

export interface ModelCatalog {
  providers: readonly CatalogProvider[];
  models: readonly CatalogModel[];
  embedding: { provider: string; model: string };
  resilience: Resilience;
}

function withKeys(file: CatalogFile, secrets: SecretSource): ModelCatalog {
  return {
    ...file,
    providers: file.providers.map((p) => ({
      ...p,
      kind: p.kind ?? providerOf(p.base_url),
      // OpenAI-compatible servers without auth still need a non-empty key for the client.
      apiKey: (p.api_key_env ? secrets(p.api_key_env) : undefined) || 'unused',
    })),
  };
}

export class ModelCatalogError extends Error {
  override name = 'ModelCatalogError';
}

/** Parses a catalog document; every problem is reported with its path. */
export function parseModelCatalog(document: unknown, secrets: SecretSource, source = 'model catalog'): ModelCatalog {
  const parsed = catalogSchema.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ModelCatalogError(`${source} is invalid: ${problems.join('; ')}`);
  }
  return withKeys(parsed.data, secrets);
}

export function loadModelCatalog(file: string, secrets: SecretSource): ModelCatalog {
  return parseModelCatalog(parseYaml(readFileSync(file, 'utf8')), secrets, file);
}

export interface SingleProviderSettings {
  baseURL?: string;
  apiKeyEnv?: string;
  timeoutMs: number;
  models: Record<ModelTier, string>;
  embeddingModel: string;
}

/** The catalog WEFT_LLM_* settings imply when no catalog file is given: one provider, one model per tier. */
export function singleProviderCatalog(settings: SingleProviderSettings, secrets: SecretSource): ModelCatalog {
  return parseModelCatalog(
    {
      providers: [
        {
          id: 'default',
          ...(settings.baseURL ? { base_url: settings.baseURL } : {}),
          ...(settings.apiKeyEnv ? { api_key_env: settings.apiKeyEnv } : {}),
          timeout_ms: settings.timeoutMs,
        },
      ],
      models: modelTiers.map((tier) => ({ id: settings.models[tier], provider: 'default', tier })),
      embedding: { provider: 'default', model: settings.embeddingModel },
    },
    secrets,
  );
}

/** A tier's models, cheapest first; catalog order among equals. */
export function tierModels(catalog: ModelCatalog, tier: ModelTier): CatalogModel[] {
  const perToken = (m: CatalogModel) => m.prompt_per_1k + m.completion_per_1k;
  return catalog.models.filter((m) => m.tier === tier).sort((a, b) => perToken(a) - perToken(b));
}

/** The model a tier's request goes to first: its cheapest available one. */
export const firstChoice = (catalog: ModelCatalog, tier: ModelTier) => tierModels(catalog, tier).find((m) => m.available);

/** A model by id: its first entry when several tiers list it. */
export function findModel(catalog: ModelCatalog, id: string): CatalogModel | undefined {
  return catalog.models.find((m) => m.id === id);
}
