// Time to first token through Weft's /v1/chat/completions: `npx tsx bench/openai-ttft-bench.ts`
// (BENCH_RUNS, default 30; BENCH_FIRST_TOKEN_MS, default 500, a hosted model's typical wait).
//
// Each run streams the same question two ways, taking turns: with the `openai` client straight to
// the scripted model (the baseline: the model call alone), and with the same client through Weft
// (a STANDARD task: the workflow, its model step, the live partials back to the route). Both are
// timed from the request to the first chunk with text, in this process. Twice: with the model's
// pacing off (what Weft adds, against a call that costs nothing) and with a first token after
// BENCH_FIRST_TOKEN_MS (against a model's own wait). Prints medians and the ratios.
import OpenAI from 'openai';
import { createApiKey } from '../core/auth/api-keys';
import { startWeftBesideBare } from './weft-beside-bare';
import { median } from './stats';

const runs = Number(process.env.BENCH_RUNS ?? 30);
const warmup = 3;
const firstTokenMs = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 500);
const answer = 'Durable execution keeps a program running through crashes by recording every step it takes.';

/** Milliseconds from the request to the first chunk that carries text. */
async function firstToken(client: OpenAI, model: string, question: string): Promise<number> {
  const started = performance.now();
  const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: question }] });
  let at = NaN;
  for await (const chunk of stream) {
    if (Number.isNaN(at) && chunk.choices[0]?.delta.content) at = performance.now() - started;
  }
  return at;
}

async function measure(pace: { firstTokenMs: number; tokensPerSecond: number } | undefined): Promise<{ direct: number; weft: number }> {
  const bench = await startWeftBesideBare(pace ? { modelPace: pace } : {});
  try {
    const key = await createApiKey(bench.pool, { tenantId: 'bench-ttft', userId: 'bench', roles: [] });
    const weft = new OpenAI({ baseURL: `http://127.0.0.1:${bench.api.httpPort}/v1`, apiKey: key, maxRetries: 0 });
    const direct = new OpenAI({ baseURL: bench.model.baseURL, apiKey: 'bench', maxRetries: 0 });
    const times = { direct: [] as number[], weft: [] as number[] };
    for (let i = 0; i < warmup + runs; i += 1) {
      // A new question each time: no answer cache, and every run is a task of its own.
      const question = `ttft question ${i} ${Date.now()}`;
      bench.model.on(question, { content: answer });
      const d = await firstToken(direct, 'bench-model', question);
      const w = await firstToken(weft, 'weft-quick', question);
      if (i >= warmup) {
        times.direct.push(d);
        times.weft.push(w);
      }
    }
    return { direct: median(times.direct), weft: median(times.weft) };
  } finally {
    await bench.stop();
  }
}

async function main(): Promise<void> {
  console.log(`time to first token, medians of ${runs} runs each (ms)`);
  console.log('model pacing                 openai direct   through Weft   ratio   Weft adds');
  for (const [label, pace] of [
    ['off', undefined],
    [`first token ${firstTokenMs} ms`, { firstTokenMs, tokensPerSecond: 50 }],
  ] as const) {
    const { direct, weft } = await measure(pace);
    console.log(
      `${label.padEnd(28)} ${direct.toFixed(1).padStart(13)} ${weft.toFixed(1).padStart(14)} ${(weft / direct).toFixed(2).padStart(7)} ${(weft - direct).toFixed(1).padStart(11)}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
