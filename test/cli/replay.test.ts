import path from 'node:path';
import { submitTask, waitForFinish } from '../support/grpc';
import { until } from '../support/orchestration';
import { itLeavesEveryTaskVerified } from '../support/verification';
import { runWeft as weft } from '../support/weft-cli';
import { startTestStack, type TestStack } from '../support/stack';

const repoRoot = path.resolve(__dirname, '../..');
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('weft replay', () => {
  it('replays a live workflow against the current code and says it matches', async () => {
    stack.model.on('replay me live', { content: 'live answer' });
    const submitted = await submitTask(stack.orchestrator, { query: 'replay me live' });
    await waitForFinish(stack.orchestrator, submitted.task_id);
    const result = weft('replay', submitted.workflow_id, '--temporal', process.env.TEMPORAL_ADDRESS!);
    expect(result.output).toContain(`OK: ${submitted.workflow_id}`);
    expect(result.code).toBe(0);
  });

  it('replays an exported history file under the workflow id it records, and explains a mismatch in plain words', () => {
    // A history the current code recorded (older ones replay on their own frozen build, test/replay/frozen-builds.ts).
    const file = path.join(repoRoot, 'test/histories/unpatched-cancel-dag.json');
    const matching = weft('replay', '--file', file);
    expect(matching.code).toBe(0);
    expect(matching.output).toContain('OK: golden-cancel-dag (');
    // Under another id the child workflows it starts differ from the recorded ones.
    const mismatching = weft('replay', '--file', file, 'another-id');
    expect(mismatching.code).toBe(1);
    expect(mismatching.output).toContain('MISMATCH: another-id');
    expect(mismatching.output).toMatch(
      /at event \d+ \(START_CHILD_WORKFLOW_EXECUTION_INITIATED\): the history recorded child workflow id 'golden-cancel-dag\/agent\/\w+'/,
    );
    expect(mismatching.output).toMatch(/the current code issued child workflow id 'another-id\/agent\/\w+'/);
    expect(mismatching.output).toContain('remedy: If the change is intended, running workflows must keep their old code: ship it as a new worker build');
    expect(mismatching.output).toContain('docs/internals/replay-and-versions.md');
  });

  it('replays the newest workflows a visibility query finds, with a summary a deploy gate reads', async () => {
    const ids: string[] = [];
    for (const query of ['gate one', 'gate two', 'gate three']) {
      stack.model.on(query, { content: `${query} done` });
      const submitted = await submitTask(stack.orchestrator, { query });
      await waitForFinish(stack.orchestrator, submitted.task_id);
      ids.push(submitted.workflow_id);
    }
    const query = `TaskQueue = '${stack.taskQueue}' AND WorkflowType = 'taskWorkflow' AND ExecutionStatus = 'Completed'`;
    // This queue's workflows: the three above (and the first test's, when it ran).
    const listed = await until(async () => {
      const found: string[] = [];
      for await (const workflow of stack.temporal.workflow.list({ query })) found.push(workflow.workflowId);
      return ids.every((id) => found.includes(id)) ? found : undefined;
    });
    const gate = weft('--output', 'json', 'replay', '--query', query, '--limit', '2', '--temporal', process.env.TEMPORAL_ADDRESS!);
    expect(gate.code).toBe(0);
    const report = JSON.parse(gate.stdout) as { replayed: number; failed: number; verdicts: Array<{ workflowId: string; ok: boolean }> };
    expect(report).toMatchObject({ replayed: 2, failed: 0 });
    // The first two in visibility's own order.
    expect(report.verdicts.map((v) => v.workflowId)).toEqual(listed.slice(0, 2));
    const text = weft('replay', '--query', query, '--limit', '10', '--temporal', process.env.TEMPORAL_ADDRESS!);
    expect(text.output).toContain(`replayed ${listed.length} workflows: ${listed.length} match, 0 do not`);
  });

  it('as a deploy gate, fails a candidate build that changed the workflow without patched(), naming the event, and passes the same change behind patched()', async () => {
    const ids: string[] = [];
    for (const query of ['before the deploy 1', 'before the deploy 2']) {
      stack.model.on(query, { content: `${query} done` });
      const submitted = await submitTask(stack.orchestrator, { query });
      await waitForFinish(stack.orchestrator, submitted.task_id);
      ids.push(submitted.workflow_id);
    }
    const query = `TaskQueue = '${stack.taskQueue}' AND WorkflowType = 'taskWorkflow'`;
    await until(async () => {
      const found: string[] = [];
      for await (const workflow of stack.temporal.workflow.list({ query })) found.push(workflow.workflowId);
      return ids.every((id) => found.includes(id)) ? found : undefined;
    });
    const gate = (candidate: string) =>
      weft(
        'replay',
        '--query',
        query,
        '--limit',
        '50',
        '--temporal',
        process.env.TEMPORAL_ADDRESS!,
        '--workflows',
        path.join(repoRoot, 'test/replay/candidate-builds', candidate),
      );
    const unpatched = gate('unpatched');
    expect(unpatched.code).toBe(1);
    for (const id of ids) expect(unpatched.output).toContain(`MISMATCH: ${id} (`);
    // A new task's first command is its first model step (no patch marker before it): the candidate's timer meets it.
    expect(unpatched.output).toContain('the current code issued a different command at this point');
    expect(unpatched.output).toContain('Timer machine does not handle this event: HistoryEvent(id: 5, ActivityTaskScheduled)');
    expect(unpatched.output).toMatch(/replayed \d+ workflows: 0 match, \d+ do not/);
    const patched = gate('patched');
    expect(patched.code).toBe(0);
    expect(patched.output).toMatch(/replayed (\d+) workflows: \1 match, 0 do not/);
  });

  it('refuses a call that names no history, or two', () => {
    expect(weft('replay')).toMatchObject({
      code: 1,
      stderr: 'weft: give one of: a workflow id, --file <history.json> (with its id optionally), or --query <visibility query>\n',
    });
    expect(weft('replay', 'some-id', '--query', "WorkflowType = 'taskWorkflow'").code).toBe(1);
  });
});

itLeavesEveryTaskVerified(() => stack.everyTask());
