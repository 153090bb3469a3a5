import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createModelGateway } from '../../core/llm/gateway';
import { parseModelCatalog, tierModels } from '../../core/llm/model-catalog';
import { modelTiers } from '../../core/orchestration/plan';
import { secretsFrom } from '../../core/secrets';
import { userText } from '../../core/transcript';
import { ScriptedModelServer, type ScriptedReply } from '../model-server/scripted-model-server';

// The provider catalogs docs/guides/models-and-providers.md lists (config/providers/), each loaded as Weft loads it and run
// against a server answering in the shapes that kind of provider sends: every tier's call reaches
// the file's model for it and its answer comes back whole, reasoning kept out, usage read or counted.

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const keys = secretsFrom({ OPENAI_API_KEY: 'sk-openai', LITELLM_API_KEY: 'sk-litellm', OPENROUTER_API_KEY: 'sk-or' });

/** The example file, every provider's base URL pointed at the test server. */
function exampleCatalog(file: string) {
  const document = parseYaml(readFileSync(path.resolve(__dirname, '../../config/providers', file), 'utf8')) as { providers: Array<Record<string, unknown>> };
  for (const provider of document.providers) provider.base_url = server.baseURL;
  return parseModelCatalog(document, keys, file);
}

const shapes: Record<string, ScriptedReply> = {
  'openai.yaml': { usage: { prompt_tokens: 20, completion_tokens: 8 } },
  'local.yaml': { reasoning: 'Think it through.', reasoningAs: 'reasoning', omitUsage: true },
  'litellm.yaml': { usage: { prompt_tokens: 20, completion_tokens: 8 } },
  'openrouter.yaml': { reasoning: 'Think it through.', reasoningAs: 'reasoning', usage: { prompt_tokens: 20, completion_tokens: 8 } },
};

describe.each(Object.keys(shapes))('config/providers/%s', (file) => {
  it.each(modelTiers)('serves the %s tier, streamed and whole', async (tier) => {
    const catalog = exampleCatalog(file);
    const gateway = createModelGateway(catalog);
    const expected = tierModels(catalog, tier)[0]!;
    for (const streamed of [true, false]) {
      const question = `${file} ${tier} ${streamed ? 'streamed' : 'whole'}: name a river`;
      server.on(question, { ...shapes[file], content: 'The Danube.' });
      const partials: string[] = [];
      const completion = await gateway.complete({
        tier,
        messages: [userText(question)],
        ...(streamed ? { onPartial: (text: string) => partials.push(text) } : {}),
      });
      expect(completion.model).toBe(expected.id);
      expect(server.requests.at(-1)!.body.model).toBe(expected.id);
      expect(completion.message.parts.filter((p) => p.kind === 'text')).toEqual([{ kind: 'text', text: 'The Danube.' }]);
      expect(partials.join('')).toBe(streamed ? 'The Danube.' : '');
      expect(completion.usage.totalTokens).toBeGreaterThan(0);
      expect(completion.usage.estimated ?? false).toBe(shapes[file]!.omitUsage === true);
    }
  });

  it('asks for a JSON schema only where the file says the provider enforces one', async () => {
    const catalog = exampleCatalog(file);
    const question = `${file}: a verdict please`;
    server.on(question, { content: '{}' });
    await createModelGateway(catalog).complete({
      tier: 'SMALL',
      messages: [userText(question)],
      responseFormat: { name: 'verdict', schema: { type: 'object' } },
    });
    const sent = server.requests.at(-1)!.body.response_format;
    if (tierModels(catalog, 'SMALL')[0]!.supports_json_schema) expect(sent).toMatchObject({ type: 'json_schema', json_schema: { name: 'verdict' } });
    else expect(sent).toBeUndefined();
  });
});
