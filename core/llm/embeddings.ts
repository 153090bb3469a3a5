import { openAiClient, type ChatModelOptions } from './chat-model';

export interface Embeddings {
  vectors: number[][];
  model: string;
}

export interface Embedder {
  embed(texts: readonly string[], model: string): Promise<Embeddings>;
}

/** Text embeddings from any OpenAI-compatible endpoint, in the order of the texts. */
export function createEmbedder(options: ChatModelOptions): Embedder {
  const client = openAiClient(options);
  return {
    async embed(texts, model) {
      const response = await client.embeddings.create({ model, input: [...texts], encoding_format: 'float' });
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      return { vectors, model: response.model || model };
    },
  };
}
