// Records golden workflow histories from real runs: `npm run capture-histories`.
// Every workflow path runs once on a throwaway Temporal dev server and database, through the real
// API; each history is written as JSON beside this file. test/replay replays them all against the
// current code on every test run.
import { writeFileSync } from 'node:fs';
import type { SubmitTaskRequest } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import '../setup/quiet-logs';
import { startTestServices } from '../setup/test-services';
import { submitTask, waitForFinish } from '../support/grpc';
import { approveTask, cancelTask, pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { manifestFile, writeHistories } from './history-files';

interface Scenario {
  name: string;
  request: SubmitTaskRequest;
  script?(stack: TestStack): void;
  /** What a person does while the task runs. */
  act?(stack: TestStack, taskId: string): Promise<void>;
  /** Child workflows whose histories are kept too, by agent id. */
  agents?: string[];
}

const call = (id: string) => ({ toolCalls: [{ id, name: 'calculator', arguments: '{"expression":"2+2"}' }] });
const approve = (modified?: string) => async (stack: TestStack, taskId: string) => {
  const pending = await pendingApprovalOf(stack.orchestrator, taskId);
  await approveTask(stack.orchestrator, {
    approval_id: pending.approval_id,
    approved: true,
    approved_by: 'golden',
    ...(modified ? { modified_action: modified } : {}),
  });
};

const scenarios: Scenario[] = [
  { name: 'simple', request: { query: '(1 + 2) * 3', auto_decompose: true } },
  {
    name: 'standard',
    request: { query: 'golden standard', metadata: { session_id: 'golden-session' } },
    script: (s) => s.model.on('golden standard', call('g1'), { content: 'A golden answer.', usage: { prompt_tokens: 5, completion_tokens: 3 } }),
  },
  {
    name: 'complex-dag',
    request: {
      query: 'golden dag',
      manual_decomposition: {
        agent_tasks: [
          { agent_id: 'left', description: 'golden left' },
          { agent_id: 'right', description: 'golden right' },
          { agent_id: 'join', description: 'golden join', dependencies: ['left', 'right'] },
        ],
      },
    },
    script: (s) => {
      s.model.on('golden left', { content: 'left done' });
      s.model.on('golden right', { content: 'right done' });
      s.model.on('golden join', { content: 'joined' });
      s.model.on('Combine these results', { content: 'golden synthesis' });
    },
    agents: ['join'],
  },
  {
    name: 'approve',
    request: { query: 'golden approve', require_approval: true },
    script: (s) => s.model.on('golden approve', { content: 'approved' }),
    act: approve(),
  },
  {
    name: 'approve-modified',
    request: { query: 'golden modify', require_approval: true, manual_decomposition: { agent_tasks: [{ agent_id: 'first', description: 'golden first' }] } },
    script: (s) => s.model.on('golden edited', { content: 'edited' }),
    act: approve('{"agents":[{"id":"edited","description":"golden edited"}]}'),
  },
  {
    name: 'reject',
    request: { query: 'golden reject', require_approval: true },
    act: async (stack, taskId) => {
      const pending = await pendingApprovalOf(stack.orchestrator, taskId);
      await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: false, feedback: 'no', approved_by: 'golden' });
    },
  },
  { name: 'timeout', request: { query: 'golden timeout', require_approval: true, context: { fields: { approval_timeout_seconds: { numberValue: 1 } } } } },
  {
    name: 'cancel',
    request: { query: 'golden cancel' },
    script: (s) => s.model.on('golden cancel', { content: 'late', delayMs: 10_000 }),
    act: async (stack, taskId) => {
      await until(() => stack.model.requests.some((r) => JSON.stringify(r.body).includes('golden cancel')) || undefined);
      await cancelTask(stack.orchestrator, taskId, 'golden cancel');
    },
  },
  {
    name: 'budget-exceeded',
    request: { query: 'golden budget', metadata: { token_budget: 10 } },
    script: (s) => s.model.on('golden budget', { content: 'expensive', usage: { prompt_tokens: 20, completion_tokens: 20 } }),
  },
  {
    name: 'failure',
    request: { query: 'golden failure' },
    script: (s) => s.model.on('golden failure', { status: 400, content: 'refused' }),
  },
  {
    name: 'continue-as-new',
    request: { query: 'golden long loop' },
    script: (s) => s.model.on('golden long loop', call('l1'), call('l2'), call('l3'), { content: 'looped' }),
  },
];

/** file name -> workflow id: replay must run under the recorded id (child ids and keys derive from it). */
const manifest: Record<string, string> = {};

async function main(): Promise<void> {
  const services = await startTestServices();
  const stack = await startTestStack({ settings: { stepsPerHistory: 2 } });
  try {
    for (const scenario of scenarios) {
      scenario.script?.(stack);
      const submitted = await submitTask(stack.orchestrator, {
        ...scenario.request,
        metadata: { task_id: `golden-${scenario.name}`, ...scenario.request.metadata },
      });
      await scenario.act?.(stack, submitted.task_id);
      await waitForFinish(stack.orchestrator, submitted.task_id);
      await until(async () => ((await stack.temporal.workflow.getHandle(submitted.workflow_id).describe()).status.name !== 'RUNNING' ? true : undefined));
      Object.assign(manifest, await writeHistories(stack.temporal, submitted.workflow_id, scenario.name));
      for (const agent of scenario.agents ?? [])
        Object.assign(manifest, await writeHistories(stack.temporal, `${submitted.workflow_id}/agent/${agent}`, `${scenario.name}.agent-${agent}`));
    }
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await stack.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
