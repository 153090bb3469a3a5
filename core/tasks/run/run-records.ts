import { z } from 'zod';
import { RecordType, decodeStrict, encodePayload, type RecordInput, type RunStartCommand, type StoredRecord, type TerminalStatus } from '../../store';
import type { ToolOutcome } from '../../tools/tool';
import { compactionRecord, transcriptRecord, type CompactionPayload, type TranscriptPayload } from '../../transcript';
import { TASK_RUN_AGENT_ID, type RunRef } from './task-ref';

// The records of a task's runs and the keys they are stored under, derived here and nowhere else.
// Keys are fixed per change or step and timestamps come from the workflow, so a retried activity
// proposes exactly the same record. Each Weft payload has its typed decoder beside its encoder.

/** A run together with the session its records are filed under ('' for none). */
export interface RecordOwner extends RunRef {
  sessionId: string;
}

/** The owner an input names: its run, the run's store agent (the task's own run when absent), its session. */
export function recordOwnerOf(input: { runId: string; runAgentId?: string; sessionId: string }): RecordOwner {
  return { runId: input.runId, runAgentId: input.runAgentId ?? TASK_RUN_AGENT_ID, sessionId: input.sessionId };
}

function base(owner: RecordOwner, key: string, at: Date) {
  return {
    key: `${owner.runId}/${key}`,
    runId: owner.runId,
    agentId: owner.runAgentId,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    timestamp: at,
  };
}

function record(owner: RecordOwner, key: string, type: RecordType, at: Date, payload: object): RecordInput {
  return { ...base(owner, key, at), type, payload: encodePayload(payload) };
}

export function runStartedRecord(owner: RecordOwner, at: Date, labels: Record<string, string>, parentRunId?: string): RecordInput {
  return record(owner, 'started', RecordType.RunStarted, at, { ...(parentRunId ? { parent_run_id: parentRunId } : {}), labels });
}

export function sessionEndedRecord(owner: RecordOwner, at: Date): RecordInput {
  return record(owner, 'stopped', RecordType.RunCompleted, at, { status: 'canceled', reason: 'session_ended' });
}

/** A run's start as the store takes it: run_started with its labels, or the run recorded stopped when its session has ended. */
export function runStartOf(owner: RecordOwner, at: Date, labels: Record<string, string>, parentRunId?: string): RunStartCommand {
  return {
    runId: owner.runId,
    agentId: owner.runAgentId,
    ...(owner.sessionId ? { sessionId: owner.sessionId } : {}),
    labels,
    startedAt: at,
    started: runStartedRecord(owner, at, labels, parentRunId),
    canceled: sessionEndedRecord(owner, at),
  };
}

export function cancellationIntentRecord(owner: RecordOwner, at: Date, reason: string): RecordInput {
  return record(owner, 'cancel-intent', RecordType.CancellationIntent, at, { reason });
}

/** A person's message to the running task, keyed by its id: sent twice, received once. */
export function messageReceivedRecord(owner: RecordOwner, at: Date, message: { id: string; text: string; from: string }): RecordInput {
  return record(owner, `message/${message.id}`, RecordType.MessageReceived, at, message);
}

/** The task's `sequence`-th pause or resume, by whom and why. */
export function controlChangeRecord(
  owner: RecordOwner,
  at: Date,
  sequence: number,
  change: { kind: 'paused' | 'resumed'; reason: string; by: string },
): RecordInput {
  return record(owner, `control/${sequence}`, RecordType.ControlChanged, at, change);
}

/** One round of a plan's review (proposed, feedback, approved, rejected), keyed by its round and kind. */
export function planReviewRecord(owner: RecordOwner, at: Date, entry: { kind: string; round: number }): RecordInput {
  return record(owner, `plan-review/${entry.round}/${entry.kind}`, RecordType.PlanReview, at, entry);
}

export function runCompletedRecord(owner: RecordOwner, at: Date, outcome: { status: TerminalStatus; reason?: string; error?: string }): RecordInput {
  return record(owner, 'completed', RecordType.RunCompleted, at, outcome);
}

export function childLinkRecord(owner: RecordOwner, at: Date, child: RunRef, toolCallId: string): RecordInput {
  return record(owner, `link/${child.runId}`, RecordType.ChildRunLinked, at, {
    tool_name: 'weft.agent',
    tool_call_id: toolCallId,
    child_run_id: child.runId,
    child_agent_id: child.runAgentId,
  });
}

// Transcript records: the seed, each step's tool results, compaction and reply.

export const stepReplyKey = (run: RunRef, step: number) => `${run.runId}/step-${step}/reply`;

export function seedRecord(owner: RecordOwner, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, 'seed', at), RecordType.TranscriptSeeded, payload);
}

export function toolResultsRecord(owner: RecordOwner, step: number, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, `step-${step}/tool-results`, at), RecordType.TranscriptAppended, payload);
}

export function stepCompactionRecord(owner: RecordOwner, step: number, at: Date, payload: CompactionPayload): RecordInput {
  return compactionRecord(base(owner, `step-${step}/compaction`, at), payload);
}

export function stepReplyRecord(owner: RecordOwner, step: number, at: Date, payload: TranscriptPayload): RecordInput {
  return transcriptRecord(base(owner, `step-${step}/reply`, at), RecordType.TranscriptAppended, payload);
}

// Tool results.

const toolOutcomeSchema = z.union([
  // A tool that returns nothing stores no content at all.
  z.strictObject({ ok: z.literal(true), content: z.unknown().optional() }),
  z.strictObject({
    ok: z.literal(false),
    error: z.strictObject({ category: z.enum(['validation', 'execution', 'network', 'circuit_open', 'outcome_unknown']), message: z.string() }),
  }),
]);
const toolResultPayload = z.strictObject({ tool_use_id: z.string(), name: z.string(), outcome: toolOutcomeSchema });

export const toolResultKey = (run: RunRef, toolCallId: string) => `${run.runId}/tool/${toolCallId}`;

export function toolResultRecord(owner: RecordOwner, call: { id: string; name: string }, at: Date, outcome: ToolOutcome): RecordInput {
  return record(owner, `tool/${call.id}`, RecordType.ToolResult, at, { tool_use_id: call.id, name: call.name, outcome });
}

/** Marks an at-most-once call as possibly started, committed before its request goes out. */
export const toolStartedKey = (run: RunRef, toolCallId: string) => `${run.runId}/tool/${toolCallId}/started`;

export function toolStartedRecord(owner: RecordOwner, call: { id: string; name: string }, at: Date): RecordInput {
  return record(owner, `tool/${call.id}/started`, RecordType.ToolCallStarted, at, { tool_use_id: call.id, name: call.name });
}

/** How a person resolved a call whose outcome was unknown. */
export type ToolResolution = 'done' | 'failed' | 'run_again';
const toolResolvedPayload = z.strictObject({
  tool_use_id: z.string(),
  name: z.string(),
  resolution: z.enum(['done', 'failed', 'run_again']),
  decided_by: z.string(),
  outcome: toolOutcomeSchema,
});

export const toolResolutionKey = (run: RunRef, toolCallId: string) => `${run.runId}/tool/${toolCallId}/resolution`;

export function toolResolutionRecord(
  owner: RecordOwner,
  call: { id: string; name: string },
  at: Date,
  resolved: { resolution: ToolResolution; decidedBy: string; outcome: ToolOutcome },
): RecordInput {
  const payload = { tool_use_id: call.id, name: call.name, resolution: resolved.resolution, decided_by: resolved.decidedBy, outcome: resolved.outcome };
  return record(owner, `tool/${call.id}/resolution`, RecordType.ToolResultResolved, at, payload);
}

export const decodeToolResolution = (stored: Pick<StoredRecord, 'payload'>) =>
  decodeStrict(toolResolvedPayload, stored.payload, RecordType.ToolResultResolved).outcome as ToolOutcome;

const toolStartedPayload = z.strictObject({ tool_use_id: z.string(), name: z.string() });
export const decodeToolStarted = (stored: Pick<StoredRecord, 'payload'>) => decodeStrict(toolStartedPayload, stored.payload, RecordType.ToolCallStarted);

export function decodeToolResult(stored: Pick<StoredRecord, 'payload'>): ToolOutcome {
  return decodeStrict(toolResultPayload, stored.payload, RecordType.ToolResult).outcome as ToolOutcome;
}

// Routing model replies.

const modelReplyPayload = z.strictObject({
  text: z.string(),
  model: z.string(),
  usage: z.strictObject({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }),
});
export type ModelReplyPayload = z.infer<typeof modelReplyPayload>;

/** `name` says which routing call: 'routing/analysis', 'routing/plan-1', ... */
export const modelReplyKey = (run: RunRef, name: string) => `${run.runId}/${name}`;

export function modelReplyRecord(owner: RecordOwner, name: string, at: Date, reply: ModelReplyPayload): RecordInput {
  return record(owner, name, RecordType.ModelReply, at, reply);
}

export function decodeModelReply(stored: Pick<StoredRecord, 'payload'>): ModelReplyPayload {
  return decodeStrict(modelReplyPayload, stored.payload, RecordType.ModelReply);
}

// Approvals.

const approvalRequestedPayload = z.strictObject({
  approval_id: z.string(),
  kind: z.enum(['plan', 'tool']),
  proposed_action: z.unknown().optional(),
  reason: z.string(),
});
const approvalDecidedPayload = z.strictObject({
  approval_id: z.string(),
  status: z.enum(['approved', 'rejected', 'expired']),
  decided_by: z.string(),
  feedback: z.string(),
  modified_action: z.string(),
  /** How the decision came (api, signal, update); absent in records written before it was kept. */
  via: z.enum(['api', 'signal', 'update']).optional(),
});
export type ApprovalRequestedPayload = z.infer<typeof approvalRequestedPayload>;
export type ApprovalDecidedPayload = z.infer<typeof approvalDecidedPayload>;

export const approvalRequestedKey = (run: RunRef, approvalId: string) => `${run.runId}/approval/${approvalId}/requested`;
export const approvalDecidedKey = (run: RunRef, approvalId: string) => `${run.runId}/approval/${approvalId}/decided`;

export function approvalRequestedRecord(owner: RecordOwner, at: Date, payload: ApprovalRequestedPayload): RecordInput {
  return record(owner, `approval/${payload.approval_id}/requested`, RecordType.ApprovalRequested, at, payload);
}

export function approvalDecidedRecord(owner: RecordOwner, at: Date, payload: ApprovalDecidedPayload): RecordInput {
  return record(owner, `approval/${payload.approval_id}/decided`, RecordType.ApprovalDecided, at, payload);
}

export const decodeApprovalRequested = (stored: Pick<StoredRecord, 'payload'>) =>
  decodeStrict(approvalRequestedPayload, stored.payload, RecordType.ApprovalRequested);
export const decodeApprovalDecided = (stored: Pick<StoredRecord, 'payload'>) =>
  decodeStrict(approvalDecidedPayload, stored.payload, RecordType.ApprovalDecided);
