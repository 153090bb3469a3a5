import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { submitTask, waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovalOf, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// What an operator sees in Temporal's Web UI and CLI, read back through the Temporal client: each
// task and agent workflow says what it is, a waiting task says what it waits for, activities and
// timers are named, and the handlers describe what to send.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

interface WorkflowMetadataQuery {
  currentDetails: string;
  definition: {
    signalDefinitions: Array<{ name: string; description?: string }>;
    updateDefinitions: Array<{ name: string; description?: string }>;
    queryDefinitions: Array<{ name: string; description?: string }>;
  };
}

const summaryOf = (event: temporal.api.history.v1.IHistoryEvent) =>
  event.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary) : undefined;

const { EventType } = temporal.api.enums.v1;
/** The events that start something: the workflow itself, its activities, timers and children. */
const starting = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
]);

/** The summaries of what the workflow started, in history order. */
async function summaries(workflowId: string): Promise<string[]> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => starting.has(event.eventType!))
    .map(summaryOf)
    .filter((summary): summary is string => summary !== undefined);
}

it('names each workflow, activity and timer, says what a waiting task waits for, and describes its handlers', async () => {
  const prefix = `ui ${Date.now()}`;
  stack.model.on(`${prefix} gather the facts`, { content: 'facts gathered' });
  stack.model.on(`${prefix} write it up`, { content: 'written up' });
  stack.model.on((text) => text.includes('facts gathered') && text.includes('written up'), { content: 'the whole report' });
  const submitted = await submitTask(stack.orchestrator, {
    query: `${prefix} research and report`,
    require_approval: true,
    metadata: { user_id: 'uma', session_id: '', task_id: '' },
    manual_decomposition: {
      agent_tasks: [
        { agent_id: 'researcher', description: `${prefix} gather the facts` },
        { agent_id: 'writer', description: `${prefix} write it up` },
      ],
    },
  });
  const pending = await pendingApprovalOf(stack.orchestrator, submitted.task_id);
  const handle = stack.temporal.workflow.getHandle(submitted.workflow_id);

  const described = await handle.describe();
  expect(await described.staticSummary()).toBe(`task of uma: ${prefix} research and report`);
  const details = await described.staticDetails();
  expect(details).toContain(`**Query**: ${prefix} research and report`);
  expect(details).toContain(`Tenant \`${stack.principal.tenantId}\`, user \`uma\``);
  expect(details).toContain("Mode: COMPLEX (caller's plan); approval required");

  const waiting = await until(async () => {
    const metadata = await handle.query<WorkflowMetadataQuery>('__temporal_workflow_metadata');
    return metadata.currentDetails ? metadata : undefined;
  });
  expect(waiting.currentDetails).toMatch(
    new RegExp(`^\\*\\*awaiting approval\\*\\* \`${pending.approval_id}\` until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: \\{"mode":"COMPLEX","plan":`),
  );
  expect(waiting.currentDetails).toContain('Why: the request requires approval');
  const described_ = (list: Array<{ name: string; description?: string }>, name: string) => list.find((d) => d.name === name)?.description ?? '';
  expect(described_(waiting.definition.signalDefinitions, 'approvalDecision')).toContain('{"approvalId": "<id>", "approved": true | false');
  expect(described_(waiting.definition.signalDefinitions, 'cancelTask')).toContain('{"reason": "..."}');
  expect(described_(waiting.definition.updateDefinitions, 'decideApproval')).toContain('refused with the reason');
  expect(described_(waiting.definition.queryDefinitions, 'taskStatus')).toContain('the approval it waits for');

  await approveTask(stack.orchestrator, { approval_id: pending.approval_id, approved: true });
  expect(await waitForFinish(stack.orchestrator, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: 'the whole report' });
  expect((await handle.query<WorkflowMetadataQuery>('__temporal_workflow_metadata')).currentDetails).toBe('');

  expect(await summaries(submitted.workflow_id)).toEqual([
    `task of uma: ${prefix} research and report`,
    `approval deadline of ${pending.approval_id}`,
    `agent researcher of ${submitted.workflow_id}: ${prefix} gather the facts`,
    `agent writer of ${submitted.workflow_id}: ${prefix} write it up`,
    "synthesis of 2 agents' results",
  ]);
  const researcher = stack.temporal.workflow.getHandle(`${submitted.workflow_id}/agent/researcher`);
  expect(await (await researcher.describe()).staticSummary()).toBe(`agent researcher of ${submitted.workflow_id}: ${prefix} gather the facts`);
  expect(await (await researcher.describe()).staticDetails()).toContain(`**Role**: ${prefix} gather the facts`);
  expect(await summaries(`${submitted.workflow_id}/agent/researcher`)).toEqual([
    `agent researcher of ${submitted.workflow_id}: ${prefix} gather the facts`,
    'model step 1 of agent researcher, tier MEDIUM',
  ]);
});

it('names tool calls by tool, call and agent', async () => {
  const query = `ui tools ${Date.now()}`;
  stack.model.on(query, { toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }] }, { content: '42' });
  const submitted = await submitTask(stack.orchestrator, { query });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(await summaries(submitted.workflow_id)).toEqual([
    `task of tester: ${query}`,
    'model step 1 of agent main',
    'tool calculator (calc-1) of agent main',
    'model step 2 of agent main',
  ]);
});

it("carries the task's tenant as its fairness key, which its agents inherit", async () => {
  const prefix = `fairness ${Date.now()}`;
  stack.model.on(`${prefix} part`, { content: 'part done' });
  stack.model.on((text) => text.includes('Combine these results') && text.includes(prefix), { content: 'whole' });
  const submitted = await submitTask(stack.orchestrator, {
    query: `${prefix} task`,
    manual_decomposition: { agent_tasks: [{ agent_id: 'solo', description: `${prefix} part` }] },
  });
  await waitForFinish(stack.orchestrator, submitted.task_id);
  const started = async (workflowId: string) =>
    (await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events![0]!.workflowExecutionStartedEventAttributes!;
  expect((await started(submitted.workflow_id)).priority?.fairnessKey).toBe(stack.principal.tenantId);
  expect((await started(`${submitted.workflow_id}/agent/solo`)).priority?.fairnessKey).toBe(stack.principal.tenantId);
});

itLeavesEveryTaskVerified(() => stack.everyTask());
