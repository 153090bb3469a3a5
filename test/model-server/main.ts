// Runs the scripted model server on its own as Weft's demo model (`make up` with no provider set).
import { scriptDemo } from './demo-script';
import { ScriptedModelServer } from './scripted-model-server';

async function main(): Promise<void> {
  const port = Number(process.env.WEFT_DEMO_MODEL_PORT ?? 8090);
  // Loopback unless a container publishes it to its neighbours (compose.yaml).
  const host = process.env.WEFT_DEMO_MODEL_HOST ?? '127.0.0.1';
  // A model's pace, so a demo task takes a real task's time; 0 for answers at once.
  const pace = {
    firstTokenMs: Number(process.env.WEFT_DEMO_MODEL_FIRST_TOKEN_MS ?? 500),
    tokensPerSecond: Number(process.env.WEFT_DEMO_MODEL_TOKENS_PER_SECOND ?? 20),
  };
  const server = new ScriptedModelServer({ demo: true, pace });
  scriptDemo(server);
  await server.start(port, host);
  console.log(
    `demo model server (scripted, not a real LLM) on ${server.baseURL}, ${pace.firstTokenMs} ms to the first token, ${pace.tokensPerSecond} tokens/s`,
  );
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error('demo model server failed:', err);
  process.exit(1);
});
