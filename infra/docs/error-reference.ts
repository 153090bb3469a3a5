import { status as GrpcStatus } from '@grpc/grpc-js';
import { taskErrorKinds, type TaskErrorKind } from '../../api/tasks/task-errors';
import { grpcStatusOf } from '../../api/grpc/grpc-errors';
import { httpErrorTable } from '../../api/http/http-errors';
import { openAiErrorTable } from '../../api/openai/openai-errors';
import { cell, code, generatedPage, table } from './markdown';

// docs/reference/errors.md from the task service's error vocabulary (api/tasks/task-errors.ts) and the
// one table each door maps it by: gRPC's statuses, HTTP's with Shannon's body, OpenAI's error body.

function row(kind: TaskErrorKind): string[] {
  const [httpStatus] = httpErrorTable[kind];
  const [openAiStatus, type, openAiCode] = openAiErrorTable[kind];
  return [
    code(kind),
    code(GrpcStatus[grpcStatusOf[kind]]),
    String(httpStatus),
    `${openAiStatus} ${code(type)}${openAiCode ? ` / ${code(openAiCode)}` : ''}`,
    cell(taskErrorKinds[kind]),
  ];
}

export function errorReference(): string {
  const kinds = Object.keys(taskErrorKinds) as TaskErrorKind[];
  return generatedPage(
    'Error codes',
    "the task service's error vocabulary (api/tasks/task-errors.ts) and each door's table",
    [
      "Weft answers bad input with the protocol's own clear error, never an internal error or a crash. Every door reports",
      "the same kinds of failure, each in its protocol's terms: over gRPC a status code with a message that says what was",
      "wrong; over REST (Weft's and Shannon's routes) the HTTP status with the body",
      '`{"error": "<what was wrong>", "code": "<gRPC status name>", "status": "STATUS_CODE_ERROR"}` (`status` is',
      "`STATUS_CODE_RATE_LIMITED` for 429 and `STATUS_CODE_TIMEOUT` for 504); over the OpenAI routes OpenAI's body,",
      '`{"error": {"message", "type", "param", "code"}}`, whose `param` names the field at fault.',
    ],
    [
      table(['Kind', 'gRPC', 'HTTP', 'OpenAI (status, type / code)', 'When'], kinds.map(row)),
      '',
      'A task that runs and fails is not a request error: its status is `FAILED` (or `CANCELLED`, `TIMEOUT`,',
      '`BUDGET_EXCEEDED`) with an `error_message`. Over the OpenAI routes a failed task answers 502 `task_failed` and a',
      'cancelled one 409 `task_cancelled`.',
      '',
      '`test/api/bad-input.test.ts` sends malformed and boundary values to every RPC and expects each class its code, and',
      'the door fuzz (`test/security/door-fuzz.test.ts`) expects UNAUTHENTICATED (REST 401) without a key, and never 401',
      'or a 5xx with one.',
    ],
  );
}
