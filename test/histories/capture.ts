// Records golden workflow histories from real runs: `npm run capture-histories`.
// Each scenario runs on a throwaway Temporal dev server and database, and its history is written
// as JSON beside this file. Replay tests (test/replay) check the current code against them.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { TaskWorkflowInput } from '../../workflows/task-workflow';
import '../setup/quiet-sdk-logs';
import { startTestServices } from '../setup/test-services';
import { startTestStack, testTaskInput, type TestStack } from '../support/stack';

interface Scenario {
  name: string;
  script(stack: TestStack): void;
  input: TaskWorkflowInput;
}

const scenarios: Scenario[] = [
  {
    name: 'standard-completed',
    script: (stack) => stack.model.on('golden standard', { content: 'A golden answer.', usage: { prompt_tokens: 5, completion_tokens: 3 } }),
    input: testTaskInput({ taskId: 'golden-standard', sessionId: 'sess-golden', query: 'golden standard' }),
  },
];

async function main(): Promise<void> {
  const services = await startTestServices();
  const stack = await startTestStack();
  try {
    for (const scenario of scenarios) {
      scenario.script(stack);
      const handle = await stack.temporal.workflow.start('taskWorkflow', {
        workflowId: scenario.input.taskId,
        taskQueue: stack.taskQueue,
        args: [scenario.input],
      });
      await handle.result().catch(() => {
        // Failure paths are scenarios too; their history is what we keep.
      });
      const history = await handle.fetchHistory();
      const file = path.join(__dirname, `${scenario.name}.json`);
      writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 1)}\n`);
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    await stack.stop();
    await services.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
