// Model gateway benchmark: `npx tsx bench/gateway-bench.ts` (BENCH_CALLS, DATABASE_URL).
//
// Overhead: the time from a caller's request to the provider receiving it (the scripted provider
// stamps each request's arrival, in this process), through the gateway and through the `openai`
// client called directly, interleaved in the same run (plain, with token counting, and with the
// providers' limits in Postgres as the API and workers keep them). Cache hits: LLMService
// GenerateCompletion with enable_caching answered from Postgres, as a gRPC client sees it, beside
// a cache miss.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import type { Pool } from 'pg';
import { startAuthenticator } from '../api/tasks/auth';
import { startGrpcServer } from '../api/grpc/grpc-server';
import { createLlmService } from '../api/grpc/llm/llm-service';
import { createApiKey } from '../core/auth/api-keys';
import { createPool } from '../core/db/database';
import { loadConfig } from '../core/config';
import { createModelGateway, type ModelGateway } from '../core/llm/gateway';
import { createWeftToolRegistry } from '../core/tools';
import { userText } from '../core/transcript';
import { createServiceClient, unaryCall } from '../protos/clients';
import { protoFilesByPort } from '../protos/load';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import { TEST_MODEL, testCatalog } from '../test/support/test-catalog';
import { withScratchDatabase } from './scratch-database';
import { printTable, summarize, timed, type Summary } from './stats';

const calls = Number(process.env.BENCH_CALLS ?? 2000);
const warmup = 200;
const question = 'What is durable execution? Answer in one sentence.';

/** Milliseconds from the call to the provider's receipt of it, for each call. */
async function toProvider(provider: ScriptedModelServer, call: () => Promise<unknown>, into: number[]): Promise<void> {
  const startedAt = performance.now();
  await call();
  into.push(provider.requests.at(-1)!.arrivedAt - startedAt);
  provider.requests.length = 0;
}

async function overhead(provider: ScriptedModelServer, pool: Pool): Promise<Summary[]> {
  const direct = new OpenAI({ baseURL: provider.baseURL, apiKey: 'bench', maxRetries: 0 });
  const plain = createModelGateway(testCatalog(provider.baseURL));
  // With a tokens-per-minute limit every call is counted with the tokenizer first.
  const counted = createModelGateway(testCatalog(provider.baseURL, (doc) => Object.assign(doc.providers[0]!, { tokens_per_minute: 1_000_000_000 })));
  // Limits shared through Postgres, as the API and the workers run them: a round trip per limit.
  const sharedLimits = createModelGateway(
    testCatalog(provider.baseURL, (doc) => Object.assign(doc.providers[0]!, { requests_per_minute: 1_000_000_000, tokens_per_minute: 1_000_000_000 })),
    { pool },
  );
  const viaGateway = (gateway: ModelGateway) => () => gateway.complete({ tier: 'MEDIUM', messages: [userText(question)] });
  const paths: Array<[string, () => Promise<unknown>]> = [
    ['openai client, direct', () => direct.chat.completions.create({ model: TEST_MODEL, messages: [{ role: 'user', content: question }] })],
    ['through the gateway', viaGateway(plain)],
    ['through the gateway, tokens counted', viaGateway(counted)],
    ['through the gateway, limits in Postgres', viaGateway(sharedLimits)],
  ];
  const latencies = paths.map(() => [] as number[]);
  for (let i = 0; i < warmup + calls; i += 1) {
    for (const [index, [, call]] of paths.entries()) await toProvider(provider, call, i < warmup ? [] : latencies[index]!);
  }
  return paths.map(([name], index) => summarize(`request -> provider: ${name}`, latencies[index]!, 0));
}

async function cacheHits(provider: ScriptedModelServer, pool: Pool): Promise<Summary[]> {
  const auth = await startAuthenticator({ pool, databaseUrl: process.env.DATABASE_URL!, enabled: true });
  const gateway = createModelGateway(testCatalog(provider.baseURL));
  const tools = createWeftToolRegistry({ ...loadConfig({}), workspaceDir: mkdtempSync(path.join(tmpdir(), 'weft-bench-')) });
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    protoFiles: protoFilesByPort.llm,
    services: { 'shannon.llm.LLMService': createLlmService({ auth, pool, gateway, tools, cacheTtlSeconds: 3600 }) },
    maxMessageBytes: 4 * 1024 * 1024,
  });
  const apiKey = await createApiKey(pool, { tenantId: `bench-${Date.now()}`, userId: 'bench', roles: [] });
  const llm = createServiceClient('llm', `127.0.0.1:${server.port}`, { apiKey });
  try {
    const ask = (caching: boolean, text = question) =>
      unaryCall(llm, 'GenerateCompletion', { messages: [{ role: 'user', content: text }], config: { enable_caching: caching } });
    await ask(true);
    const hits: number[] = [];
    const misses: number[] = [];
    for (let i = 0; i < warmup + calls; i += 1) {
      const hit = await timed(i < warmup ? [] : hits, () => ask(true));
      if (!hit.cache_hit) throw new Error('expected a cache hit');
      await timed(i < warmup ? [] : misses, () => ask(false));
    }
    return [summarize('GenerateCompletion, cache hit (gRPC round trip)', hits, 0), summarize('GenerateCompletion, no cache (gRPC round trip)', misses, 0)];
  } finally {
    llm.close();
    await server.shutdown();
    await auth.close();
  }
}

async function main(): Promise<void> {
  const provider = new ScriptedModelServer();
  provider.on(() => true, { content: 'Durable execution means a program survives crashes and resumes where it left off.' });
  await provider.start();
  try {
    const rows = await withScratchDatabase('weft_gateway_bench', async (url) => {
      const pool = createPool(url);
      try {
        return [...(await overhead(provider, pool)), ...(await cacheHits(provider, pool))];
      } finally {
        await pool.end();
      }
    });
    printTable(rows.map((row) => ({ ...row, opsPerSecond: NaN })));
    const added = (row: number) => `+${(rows[row]!.p50 - rows[0]!.p50).toFixed(2)} ms`;
    console.log(`\ngateway overhead: ${added(1)} p50 per call (target <= 2 ms); with token counting ${added(2)}; with limits in Postgres ${added(3)}`);
    console.log(`cache hit: ${rows[4]!.p50.toFixed(2)} ms p50 (target <= 5 ms)`);
  } finally {
    await provider.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
