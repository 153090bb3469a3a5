// Records the golden history of an eval's task (`weft eval`): its calculator call is answered from
// the recorded task's, its dangerous file_write runs without an approval (an eval never runs it:
// the record holds no such call, so it is refused) (`npx tsx test/histories/capture-eval.ts`).
import type { taskWorkflow } from '../../workflows/task-workflow';
import { recordOnlyPolicy } from '../../core/tasks/run/eval-tools';
import { testTaskInput } from '../support/stack';
import { captureGolden } from './capture-harness';
import { addToGoldenHistories } from './history-files';

captureGolden('golden-eval', async ({ model, temporal, taskQueue }) => {
  const toolResultOf = (id: string) => (_text: string, body: Record<string, unknown>) => JSON.stringify(body.messages).includes(`"tool_call_id":"${id}"`);
  model.on(toolResultOf('write-1'), { content: 'Forty-two, not written down.' });
  model.on(toolResultOf('calc-2'), { toolCalls: [{ id: 'write-1', name: 'file_write', arguments: '{"path":"answer.md","content":"42"}' }] });
  model.on(toolResultOf('calc-1'), { content: '42' });
  const recorded = testTaskInput({ taskId: 'golden-eval-recorded', query: 'golden eval' });
  model.on((_text, body) => JSON.stringify(body.messages).includes('golden eval'), {
    toolCalls: [{ id: 'calc-1', name: 'calculator', arguments: '{"expression":"6*7"}' }],
  });
  await temporal.workflow.execute<typeof taskWorkflow>('taskWorkflow', { workflowId: recorded.taskId, taskQueue, args: [recorded] });

  model.reset();
  model.on(toolResultOf('write-1'), { content: 'Forty-two, not written down.' });
  model.on(toolResultOf('calc-2'), { toolCalls: [{ id: 'write-1', name: 'file_write', arguments: '{"path":"answer.md","content":"42"}' }] });
  model.on((_text, body) => JSON.stringify(body.messages).includes('golden eval'), {
    toolCalls: [{ id: 'calc-2', name: 'calculator', arguments: '{"expression": "6*7"}' }],
  });
  const input = {
    ...testTaskInput({ taskId: 'golden-eval', query: 'golden eval' }),
    eval: { evalId: 'golden', fromTaskId: recorded.taskId, tools: recordOnlyPolicy },
  };
  await temporal.workflow.execute<typeof taskWorkflow>('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  await addToGoldenHistories(temporal, input.taskId, 'eval');
});
