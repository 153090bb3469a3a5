import { setTimeout as pause } from 'node:timers/promises';
import { status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { callUnary, createServiceClient } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { finalEventTypes } from '../../api/streaming/task-event-tail';
import type { ScriptedModelServer } from '../../test/model-server/scripted-model-server';
import { approveTask, pendingApprovals } from '../../test/support/orchestration';

// The chaos run's load: a mix of STANDARD, tool-using, approval and COMPLEX tasks submitted through
// the API (a submit the API did not answer is sent again under the same task name), an approver
// that approves whatever waits, and stream clients that resume with their last event id.

const kinds = ['standard', 'tool', 'approval', 'complex'] as const;

/** Scripts the model for task `i` of the run and returns what to submit for it. */
export function scriptedTask(model: ScriptedModelServer, run: string, i: number): SubmitTaskRequest {
  const kind = kinds[i % kinds.length]!;
  const query = `chaos ${run} ${kind} ${i}`;
  const name = { metadata: { task_id: `chaos-${run}-${i}` } };
  // Each step takes a while, so that kills and restarts land in the middle of work.
  const slow = { delayMs: 300 };
  if (kind === 'tool') {
    model.on((text, body) => text.includes(query) && JSON.stringify(body.messages).includes('"role":"tool"'), { content: `${query}: 42`, ...slow });
    model.on(query, { toolCalls: [{ id: `calc-${i}`, name: 'calculator', arguments: '{"expression":"6*7"}' }], ...slow });
    return { ...name, query };
  }
  if (kind === 'complex') {
    model.on(`${query} part a`, { content: 'a done', ...slow });
    model.on(`${query} part b`, { content: 'b done', ...slow });
    model.on((text) => text.includes('Combine these results') && text.includes(query), { content: `${query}: combined`, ...slow });
    const manual_decomposition = {
      agent_tasks: [
        { agent_id: 'a', description: `${query} part a` },
        { agent_id: 'b', description: `${query} part b`, dependencies: ['a'] },
      ],
    };
    return { ...name, query, manual_decomposition };
  }
  model.on(query, { content: `${query}: done`, ...slow });
  return { ...name, query, require_approval: kind === 'approval' };
}

/** A call made again while the API (or what it depends on) is unavailable, as a client should. */
export async function untilAnswered<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const code = (err as ServiceError).code;
      if (code !== grpcStatus.UNAVAILABLE && code !== grpcStatus.DEADLINE_EXCEEDED) throw err;
      await pause(250);
    }
  }
}

/** Submits until the API answers: the task's name makes a repeated submit find the same task. */
export const submitUntilAnswered = (client: OrchestratorServiceClient, request: SubmitTaskRequest) =>
  untilAnswered(() => callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(client.SubmitTask, client, request));

export interface Approver {
  /** While held, tasks wait for their approval: streams on them stay live. Resolves once no approval is being given. */
  hold(held: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** A person takes a few seconds to decide: approval tasks stay live long enough to be streamed. */
const decisionDelayMs = 3_000;

/** Approves every approval that has waited a few seconds, until stopped. */
export function startApprover(client: OrchestratorServiceClient): Approver {
  let running = true;
  let held = false;
  let round: Promise<void> = Promise.resolve();
  const approveWaiting = async () => {
    const pending = await pendingApprovals(client).catch(() => ({ approvals: [] }));
    const due = pending.approvals.filter((approval) => Date.now() - Number(approval.requested_at?.seconds ?? 0) * 1000 >= decisionDelayMs);
    for (const approval of due) {
      await approveTask(client, { approval_id: approval.approval_id, approved: true, feedback: 'chaos approver' }).catch(() => undefined);
    }
  };
  const loop = (async () => {
    while (running) {
      if (!held) {
        round = approveWaiting();
        await round;
      }
      await pause(300);
    }
  })();
  return {
    async hold(value) {
      held = value;
      await round;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}

export interface FollowedStream {
  workflowId: string;
  /** Every stored event's seq, as received across reconnections. */
  seqs: number[];
  reconnects: number;
  ended: boolean;
}

/** Follows a task's stream to its end, resuming after its last event whenever the connection breaks. */
export async function followStream(address: string, apiKey: string, workflowId: string, deadline: number): Promise<FollowedStream> {
  const followed: FollowedStream = { workflowId, seqs: [], reconnects: 0, ended: false };
  while (!followed.ended && Date.now() < deadline) {
    const client = createServiceClient('streaming', address, { apiKey });
    const last = followed.seqs.at(-1) ?? 0;
    let finalSeen = false;
    const outcome = await new Promise<'end' | 'error'>((resolve) => {
      const call = client.StreamTaskExecution({ workflow_id: workflowId, last_event_id: last });
      call.on('data', (update: TaskUpdate__Output) => {
        // Live-only partial text has no seq: it is not in the log.
        if (Number(update.seq) > 0) followed.seqs.push(Number(update.seq));
        if (finalEventTypes.has(update.type)) finalSeen = true;
      });
      call.on('end', () => resolve('end'));
      call.on('error', () => resolve('error'));
    });
    client.close();
    // A draining API ends streams too: only the task's final event ends following it.
    if (outcome === 'end' && finalSeen) followed.ended = true;
    else {
      followed.reconnects += 1;
      await pause(250);
    }
  }
  return followed;
}
