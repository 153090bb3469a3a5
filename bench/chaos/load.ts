import { setTimeout as pause } from 'node:timers/promises';
import { status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { callUnary, createServiceClient } from '../../protos/clients';
import type { OrchestratorServiceClient } from '../../protos/generated/shannon/orchestrator/OrchestratorService';
import type { SubmitTaskRequest } from '../../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../../protos/generated/shannon/orchestrator/SubmitTaskResponse';
import type { TaskUpdate__Output } from '../../protos/generated/shannon/orchestrator/TaskUpdate';
import { finalEventTypes } from '../../api/tasks/task-event-tail';
import type { ScriptedModelServer } from '../../test/model-server/scripted-model-server';
import { approveTask, pendingApprovals } from '../../test/support/orchestration';

// The chaos run's load: a mix of STANDARD, tool-using, approval, COMPLEX, long (many steps) and
// side-effect (a keyed payment and an at-most-once booking at the peer) tasks submitted through the
// API (a submit the API did not answer is sent again under the same task name), each with the answer
// its script implies; an approver that decides whatever waits; and stream clients that resume with
// their last event id.

const kinds = ['standard', 'tool', 'approval', 'complex', 'long', 'effects'] as const;
/** A long task's calculator steps: it writes events for several seconds, long enough to stream through an API crash. */
const longSteps = 8;

export interface ScriptedTask {
  request: SubmitTaskRequest;
  kind: (typeof kinds)[number];
  /** The result the task must end with. */
  expected: string;
  /** A side-effect task's reference at the peer: its booking's and its payment's. */
  ref?: string;
}

const toolResultsIn = (body: Record<string, unknown>) => (JSON.stringify(body.messages).match(/"role":"tool"/g) ?? []).length;

/** Scripts the model for task `i` of the run and returns what to submit for it, and the answer it must give. */
export function scriptedTask(model: ScriptedModelServer, run: string, i: number): ScriptedTask {
  const kind = kinds[i % kinds.length]!;
  // Closed by a full stop, so that no task's query is the start of another's (task 1 and task 11).
  const query = `chaos ${run} ${kind} ${i}.`;
  const name = { metadata: { task_id: `chaos-${run}-${i}` } };
  // Each step takes a while, so that crashes land in the middle of work; a long task's steps longer,
  // so that it is still writing events when the API dies under its streams.
  const slow = { delayMs: kind === 'long' ? 1_000 : 300 };
  if (kind === 'tool' || kind === 'long') {
    const steps = kind === 'long' ? longSteps : 1;
    model.on((text, body) => text.includes(query) && toolResultsIn(body) >= steps, { content: `${query}: 42`, ...slow });
    for (let step = 0; step < steps; step++) {
      model.on((text, body) => text.includes(query) && toolResultsIn(body) === step, {
        toolCalls: [{ id: `calc-${i}-${step}`, name: 'calculator', arguments: '{"expression":"6*7"}' }],
        ...slow,
      });
    }
    return { kind, request: { ...name, query }, expected: `${query}: 42` };
  }
  if (kind === 'effects') {
    const ref = `chaos-${run}-${i}`;
    model.on((text, body) => text.includes(query) && toolResultsIn(body) >= 2, { content: `${query}: booked and paid`, ...slow });
    model.on((text, body) => text.includes(query) && toolResultsIn(body) === 0, {
      toolCalls: [
        { id: `book-${i}`, name: 'effects_book', arguments: JSON.stringify({ ref }) },
        { id: `pay-${i}`, name: 'effects_pay', arguments: JSON.stringify({ ref }) },
      ],
      ...slow,
    });
    return { kind, ref, request: { ...name, query }, expected: `${query}: booked and paid` };
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
    return { kind, request: { ...name, query, manual_decomposition }, expected: `${query}: combined` };
  }
  model.on(query, { content: `${query}: done`, ...slow });
  return { kind, request: { ...name, query, require_approval: kind === 'approval' }, expected: `${query}: done` };
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
  stop(): Promise<void>;
}

/** A person takes a few seconds to decide. */
const decisionDelayMs = 3_000;

/** What a person answers to an approval: approve it, with a modified action if it takes one. */
export type Decide = (approvalId: string) => { modified_action?: string };

/** Approves every approval that has waited a few seconds as `decide` says, until stopped. */
export function startApprover(client: OrchestratorServiceClient, decide: Decide): Approver {
  let running = true;
  const approveWaiting = async () => {
    const pending = await pendingApprovals(client).catch(() => ({ approvals: [] }));
    const due = pending.approvals.filter((approval) => Date.now() - Number(approval.requested_at?.seconds ?? 0) * 1000 >= decisionDelayMs);
    for (const approval of due) {
      const decision = { approval_id: approval.approval_id, approved: true, feedback: 'chaos approver', ...decide(approval.approval_id) };
      await approveTask(client, decision).catch(() => undefined);
    }
  };
  const loop = (async () => {
    while (running) {
      await approveWaiting();
      await pause(300);
    }
  })();
  return {
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
