import * as grpc from '@grpc/grpc-js';
import { unaryCall } from '../../protos/clients';
import { apiServices, fuzzCases, sendRaw, serviceMethods } from '../support/fuzz';
import { startTestStack, type TestStack } from '../support/stack';

// Every RPC of every service gets malformed and boundary values (empty, huge, NUL, invalid UTF-8,
// unknown enums, negative and extreme numbers, deep structures, garbage bytes, oversized messages).
// Each class of input gets the code docs/reference/errors.md documents for it: INVALID_ARGUMENT for what does
// not decode (garbage, invalid UTF-8, NUL, unknown enums), RESOURCE_EXHAUSTED over the size limit,
// and otherwise the RPC's own verdict (never a hang, INTERNAL, UNKNOWN or UNAVAILABLE); the server survives.

let stack: TestStack;
let ids: { task: string; session: string };
beforeAll(async () => {
  stack = await startTestStack();
  stack.model.on('fuzz base question', { content: 'fuzz answer' });
  const task = await unaryCall(stack.orchestrator, 'SubmitTask', { query: 'fuzz base question' });
  const session = await unaryCall(stack.client('session'), 'CreateSession', {});
  ids = { task: task.task_id, session: session.session_id };
});
afterAll(() => stack.stop());

/**
 * A call still unanswered after this long has hung: DEADLINE_EXCEEDED is no class's answer. Long
 * enough for what the API documents as waiting (a SubmitTask with auto_decompose answers once
 * routing has decided) on a loaded machine.
 */
const answerWithinMs = 20_000;

/** A plausible request per RPC, so that each variant reaches the validation behind the first field. */
const bases = (): Record<string, Record<string, unknown>> => ({
  SubmitTask: { query: 'fuzz question' },
  GetTaskStatus: { task_id: ids.task },
  CancelTask: { task_id: ids.task },
  GetSessionContext: { session_id: ids.session },
  StreamTaskExecution: { workflow_id: ids.task },
  GetSession: { session_id: ids.session },
  UpdateSession: { session_id: ids.session },
  AddMessage: { session_id: ids.session, message: { role: 'user', content: 'hi' } },
  ClearHistory: { session_id: ids.session, keep_context: true },
  GenerateAnswer: { text: 'fuzz' },
  AskInSession: { text: 'fuzz' },
  ExecuteTask: { query: 'fuzz agent question' },
  StreamExecuteTask: { query: 'fuzz agent question' },
  GenerateCompletion: { messages: [{ role: 'user', content: 'fuzz' }] },
  StreamCompletion: { messages: [{ role: 'user', content: 'fuzz' }] },
  EmbedText: { texts: ['fuzz'] },
  AnalyzeComplexity: { query: 'fuzz' },
});

it.each(apiServices)(
  '%s answers each class of malformed and boundary input with its documented code',
  async (service, port) => {
    const address = `127.0.0.1:${stack.api[port]}`;
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${stack.apiKey}`);
    const surprises: string[] = [];
    let calls = 0;
    try {
      for (const { rpc, serverStreaming } of serviceMethods(service)) {
        const cases = fuzzCases(service, rpc, bases()[rpc] ?? {});
        // A few at a time: enough to overlap waits, few enough for two cores.
        for (let i = 0; i < cases.length; i += 8) {
          await Promise.all(
            cases.slice(i, i + 8).map(async (fuzz) => {
              // An oversized message can stall or reset its connection (HTTP/2 flow control), so it gets its own.
              const channel = fuzz.oversized ? new grpc.Client(address, grpc.credentials.createInsecure()) : client;
              const { code, details } = await sendRaw(channel, `/${service}/${rpc}`, fuzz.bytes, metadata, serverStreaming, answerWithinMs);
              if (channel !== client) channel.close();
              calls += 1;
              if (!fuzz.expected.has(code)) surprises.push(`${rpc} ${fuzz.name}: ${grpc.status[code]} ${details}`);
            }),
          );
        }
      }
    } finally {
      client.close();
    }
    expect(surprises).toEqual([]);
    expect(calls).toBeGreaterThan(10);
    // Still serving.
    const health = await unaryCall(stack.client('agent'), 'HealthCheck', {});
    expect(health.healthy).toBe(true);
  },
  180_000,
);
