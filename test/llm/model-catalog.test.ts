import path from 'node:path';
import { loadModelCatalog, parseModelCatalog, tierModels } from '../../core/llm/model-catalog';
import { secretsFrom } from '../../core/secrets';

it('loads the example catalog, reading keys from the environment and telling providers apart', () => {
  const catalog = loadModelCatalog(path.resolve(__dirname, '../../config/models.example.yaml'), secretsFrom({ OPENAI_API_KEY: 'sk-test' }));
  expect(catalog.providers.map((p) => [p.id, p.kind, p.apiKey])).toEqual([
    ['openai', 'OPENAI', 'sk-test'],
    ['deepseek', 'DEEPSEEK', 'unused'],
    ['local', 'OLLAMA', 'unused'],
  ]);
  // The local model is free, so it is the small tier's first choice.
  expect(tierModels(catalog, 'SMALL').map((m) => m.id)).toEqual(['qwen3:8b', 'gpt-5-mini']);
  expect(tierModels(catalog, 'MEDIUM').map((m) => m.id)).toEqual(['deepseek-chat', 'gpt-5']);
  expect(catalog.resilience.breaker_failures).toBe(5);
});

it('refuses a catalog with problems, naming each one with its path', () => {
  const document = {
    providers: [{ id: 'a' }, { id: 'a', kind: 'NOPE' }],
    models: [
      { id: 'm', provider: 'b', tier: 'MEDIUM' },
      { id: 'n', provider: 'a', tier: 'HUGE', prompt_per_1k: -1 },
    ],
    embedding: { provider: 'a', model: 'e' },
    extra: true,
  };
  expect(() => parseModelCatalog(document, secretsFrom({}), 'models.yaml')).toThrow(
    /^models\.yaml is invalid: .*providers\.1\.kind: .*models\.1\.tier: .*models\.1\.prompt_per_1k: .*\(root\): Unrecognized key: "extra"/,
  );
  const duplicate = { providers: [{ id: 'a' }, { id: 'a' }], models: [{ id: 'm', provider: 'b', tier: 'MEDIUM' }], embedding: { provider: 'c', model: 'e' } };
  expect(() => parseModelCatalog(duplicate, secretsFrom({}))).toThrow(
    'model catalog is invalid: providers.1.id: provider "a" is declared twice; models.0.provider: model "m" names unknown provider "b"; embedding.provider: embedding names unknown provider "c"',
  );
});
