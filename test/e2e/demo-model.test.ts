import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listTaskEvents } from '../../core/events/event-log';
import { workspaceDirOf } from '../../core/tools/builtin/workspace';
import { scriptDemo } from '../model-server/demo-script';
import { ScriptedModelServer } from '../model-server/scripted-model-server';
import { submitTask, waitForFinish } from '../support/grpc';
import { approveTask, pendingApprovals, taskDetails, until } from '../support/orchestration';
import { startTestStack, type TestStack } from '../support/stack';
import { itLeavesEveryTaskVerified } from '../support/verification';

// The demo model `make up` runs when no provider is configured, scripted as it is there: a
// newcomer's research-style question shows COMPLEX with parallel agents, tools and an approval.

let stack: TestStack;
beforeAll(async () => {
  // As `make up` runs it: the demo's script, and its labelled echo for anything else.
  const model = new ScriptedModelServer({ demo: true });
  scriptDemo(model);
  stack = await startTestStack({ model });
});
afterAll(() => stack.stop());

it('runs a research-style question as a COMPLEX plan with parallel agents, tool calls and an approval, all labelled as scripted', async () => {
  const submitted = await submitTask(stack.orchestrator, { query: 'Research and compare how many hours a year has', auto_decompose: true });
  const decided = new Set<string>();
  // The plan writes a file (a dangerous tool): a person approves the plan, and the write itself.
  const status = await until(async () => {
    const { approvals } = await pendingApprovals(stack.orchestrator);
    for (const approval of approvals.filter((a) => a.approval_id.startsWith(submitted.task_id) && !decided.has(a.approval_id))) {
      decided.add(approval.approval_id);
      await approveTask(stack.orchestrator, { approval_id: approval.approval_id, approved: true });
    }
    const current = await taskDetails(stack.orchestrator, submitted.task_id);
    return ['TASK_STATUS_QUEUED', 'TASK_STATUS_RUNNING'].includes(current.status) ? undefined : current;
  }, 120_000);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  expect(status.result).toMatch(/^\[demo model: scripted, not a real LLM\] Final answer: /);
  expect(status.metrics?.mode).toBe('EXECUTION_MODE_COMPLEX');
  expect(status.agent_statuses.map((a) => [a.agent_id, a.status])).toEqual([
    ['researcher', 'TASK_STATUS_COMPLETED'],
    ['analyst', 'TASK_STATUS_COMPLETED'],
    ['writer', 'TASK_STATUS_COMPLETED'],
  ]);
  expect([...decided][0]).toBe(`${submitted.task_id}/plan`);

  const events = await listTaskEvents(stack.pool, submitted.workflow_id);
  const tools = events.filter((e) => e.type === 'TOOL_OBSERVATION').map((e) => `${e.agentId}: ${e.message}`);
  expect(tools).toEqual(
    expect.arrayContaining([expect.stringMatching(/^researcher: .*8760/), expect.stringMatching(/^analyst: .*7\.25/), expect.stringMatching(/^writer: /)]),
  );
  expect(events.find((e) => e.type === 'DECOMPOSITION_COMPLETED')?.message).toBe('3 agents: researcher, analyst, writer');
  // The researcher and the analyst ran side by side: both started before either finished.
  const at = (type: string, agentId: string) => events.find((e) => e.type === type && e.agentId === agentId)!.seq;
  expect(Math.max(at('AGENT_STARTED', 'researcher'), at('AGENT_STARTED', 'analyst'))).toBeLessThan(
    Math.min(at('AGENT_COMPLETED', 'researcher'), at('AGENT_COMPLETED', 'analyst')),
  );
}, 180_000);

it('answers any other question with one agent, saying it is scripted', async () => {
  const submitted = await submitTask(stack.orchestrator, { query: 'What is durable execution?', auto_decompose: true });
  const status = await waitForFinish(stack.orchestrator, submitted.task_id);
  expect(status).toMatchObject({ status: 'TASK_STATUS_COMPLETED' });
  expect(status.metrics?.mode).toBe('EXECUTION_MODE_STANDARD');
  expect(status.result).toMatch(/^\[demo model: scripted, not a real LLM\] You asked: What is durable execution\?\n/);
});

itLeavesEveryTaskVerified(() => stack.everyTask());

it("writes the Markdown file it is asked to create to the session's workspace", async () => {
  const admin = await stack.clientFor({ tenantId: stack.principal.tenantId, userId: 'demo-admin', roles: ['admin'] });
  const sessionId = `demo-files-${Date.now()}`;
  const submitted = await submitTask(admin, {
    query: "Create a short markdown summary titled 'Demo Notes'.",
    auto_decompose: true,
    metadata: { session_id: sessionId },
  });
  expect(await waitForFinish(admin, submitted.task_id)).toMatchObject({ status: 'TASK_STATUS_COMPLETED', result: expect.stringContaining('summary.md') });
  const file = readFileSync(path.join(workspaceDirOf(stack.workspaceDir, { tenantId: stack.principal.tenantId, sessionId, taskId: '' }), 'summary.md'), 'utf8');
  expect(file).toMatch(/^# Demo Notes\n/);
});
