import { parseModelCatalog, type ModelCatalog } from '../../core/llm/model-catalog';
import { secretsFrom } from '../../core/secrets';

export const TEST_MODEL = 'scripted-test-model';
export const TEST_MODELS = { SMALL: 'scripted-small', MEDIUM: TEST_MODEL, LARGE: 'scripted-large' };
export const TEST_EMBEDDING_MODEL = 'scripted-embedding';

type CatalogDocument = {
  providers: Array<Record<string, unknown>>;
  models: Array<Record<string, unknown>>;
  embedding: { provider: string; model: string };
  resilience: Record<string, unknown>;
};

/**
 * The catalog document of a test stack: one provider (the scripted model server) serving one model
 * per tier, with retries and breaker timings short enough for tests. Tests edit it before parsing.
 */
export function testCatalogDocument(baseURL: string): CatalogDocument {
  return {
    providers: [{ id: 'scripted', base_url: baseURL, timeout_ms: 10_000 }],
    models: Object.entries(TEST_MODELS).map(([tier, id]) => ({ id, provider: 'scripted', tier, context_window: 32_000 })),
    embedding: { provider: 'scripted', model: TEST_EMBEDDING_MODEL },
    resilience: {
      max_attempts: 2,
      initial_backoff_ms: 10,
      max_backoff_ms: 50,
      max_retry_after_ms: 2_000,
      breaker_failures: 5,
      breaker_half_open_after_ms: 1_000,
    },
  };
}

export function testCatalog(baseURL: string, edit: (document: CatalogDocument) => void = () => {}): ModelCatalog {
  const document = testCatalogDocument(baseURL);
  edit(document);
  return parseModelCatalog(document, secretsFrom({}));
}
