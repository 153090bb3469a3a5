// Wide task benchmark (issue 19): `npx tsx bench/wide-task-bench.ts`. A COMPLEX task split into
// BENCH_AGENTS (default 10, the maximum) parallel agents, each taking two model steps with a
// calculator call between them, against its own Temporal dev server and database. The model is the
// scripted server, each of its replies delayed like a real model's; one agent is slower than the
// rest. Then the slowest agent's work runs alone, as a STANDARD task with the same replies. Prints
// the COMPLEX task's wall time as a ratio to the slowest agent alone plus the task's plan (routing
// and decomposition) and synthesis steps, all measured in this run.
import { randomUUID } from 'node:crypto';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startTestStack, type TestStack } from '../test/support/stack';
import { submitTask, waitForFinish } from '../test/support/grpc';
import { activityTimes } from './activity-times';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';

const agents = Number(process.env.BENCH_AGENTS ?? 10);
const stepDelayMs = Number(process.env.BENCH_STEP_DELAY_MS ?? 800);
const slowestDelayMs = stepDelayMs * 1.5;

/** An agent's (or a lone task's) two model steps around a calculator call, each reply after `delayMs`. */
function scriptAgent(stack: TestStack, prompt: string, delayMs: number): void {
  const afterTool = (text: string, body: { messages?: unknown }) => text.includes(prompt) && JSON.stringify(body.messages).includes('"role":"tool"');
  stack.model.on(afterTool, { content: `${prompt}: 42`, delayMs });
  stack.model.on(prompt, { toolCalls: [{ id: `calc-${randomUUID()}`, name: 'calculator', arguments: '{"expression":"6*7"}' }], delayMs });
}

/** Milliseconds from submit to the task's end. */
async function wallTime(stack: TestStack, request: SubmitTaskRequest): Promise<{ ms: number; workflowId: string; status: string }> {
  const started = performance.now();
  const submitted = await submitTask(stack.orchestrator, request);
  const finished = await waitForFinish(stack.orchestrator, submitted.task_id, 10 * 60_000);
  return { ms: performance.now() - started, workflowId: submitted.workflow_id, status: finished.status };
}

async function wideTask(stack: TestStack) {
  const query = `wide task ${randomUUID()}: research every region`;
  const plan = Array.from({ length: agents }, (_, i) => ({ id: `region-${i}`, description: `${query} region ${i}` }));
  stack.model.on((text) => text.includes('Classify the task') && text.includes(query), {
    content: JSON.stringify({
      recommended_mode: 'COMPLEX',
      complexity_score: 0.9,
      required_capabilities: [],
      estimated_agents: agents,
      estimated_tokens: 5000,
      estimated_cost_usd: 0,
      reasoning: 'one part per region',
    }),
    delayMs: stepDelayMs / 2,
  });
  stack.model.on((text) => text.includes('Split the task') && text.includes(query), { content: JSON.stringify({ agents: plan }), delayMs: stepDelayMs });
  plan.forEach((agent, i) => scriptAgent(stack, `Your part: ${agent.description}`, i === agents - 1 ? slowestDelayMs : stepDelayMs));
  stack.model.on((text) => text.includes('Combine these results') && text.includes(query), { content: 'every region, combined', delayMs: stepDelayMs });
  const run = await wallTime(stack, { query, auto_decompose: true });
  const history = (await stack.temporal.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
  const plannedMs = [...activityTimes(history, 'analyzeComplexity'), ...activityTimes(history, 'decomposeTask')].reduce((a, b) => a + b, 0);
  const synthesisMs = activityTimes(history, 'runModelStep').at(-1) ?? 0;
  return { ...run, plannedMs, synthesisMs };
}

async function main(): Promise<void> {
  const services = await startTestServices();
  const stack = await startTestStack({ settings: { maxAgents: agents } });
  try {
    // A warm-up task, so that neither measured run pays for the worker's first workflow task.
    const warmUp = `warm up ${randomUUID()}`;
    scriptAgent(stack, warmUp, 0);
    await wallTime(stack, { query: warmUp });

    const wide = await wideTask(stack);
    const alonePrompt = `alone ${randomUUID()}: the slowest region`;
    scriptAgent(stack, alonePrompt, slowestDelayMs);
    const alone = await wallTime(stack, { query: alonePrompt });

    const bound = alone.ms + wide.plannedMs + wide.synthesisMs;
    console.log(`${agents}-agent COMPLEX task: ${wide.status} in ${wide.ms.toFixed(0)} ms (plan ${wide.plannedMs} ms, synthesis ${wide.synthesisMs} ms)`);
    console.log(`slowest agent alone (STANDARD, same replies): ${alone.status} in ${alone.ms.toFixed(0)} ms`);
    console.log(`wall time / (slowest agent alone + plan + synthesis): ${(wide.ms / bound).toFixed(2)} (target <= 1.3)`);
  } finally {
    await stack.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
