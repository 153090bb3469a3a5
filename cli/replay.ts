import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import { workflowsPath } from '../workers/create-worker';
import { explainMismatch, type MismatchExplanation } from './replay-explanation';

type History = temporal.api.history.v1.IHistory;

// `weft replay`: runs recorded histories through the current workflow code, as a worker would
// after a deploy, and says whether each still matches and, when not, where and why.

export interface ReplayVerdict {
  workflowId: string;
  runId: string;
  events: number;
  ok: boolean;
  mismatch?: MismatchExplanation;
  /** A failure that is not a mismatch (the history could not be replayed at all). */
  error?: string;
}

/** The history in an exported file (`temporal workflow show --output json`) and the workflow id it records. */
export function loadHistoryFile(file: string, workflowId?: string): { history: History; workflowId: string } {
  const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
  const recorded = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? '';
  // Child workflow ids and record keys derive from the workflow id: replay under the recorded one.
  const id = workflowId ?? recorded;
  if (!id) throw new Error(`${file} does not record its workflow id (a server before 1.21): give the id as the first argument`);
  return { history, workflowId: id };
}

/** The SDK's replay warnings would only repeat what the verdict says. */
function quietRuntime(): void {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: 'ERROR' } } });
}

function verdictOf(result: ReplayResult, history: History): ReplayVerdict {
  const base = { workflowId: result.workflowId, runId: result.runId, events: history.events?.length ?? 0 };
  if (!result.error) return { ...base, ok: true };
  if (result.error.name === 'DeterminismViolationError') return { ...base, ok: false, mismatch: explainMismatch(history, result.error.message) };
  return { ...base, ok: false, error: result.error.message };
}

/** Replays each history against the current workflow code, or the workflows module given (a candidate build's). */
export async function replayHistories(histories: AsyncIterable<{ workflowId: string; history: History }>, candidate = workflowsPath): Promise<ReplayVerdict[]> {
  quietRuntime();
  // The SDK replays one history at a time, so its result is always about the last one handed over.
  let current: History = {};
  async function* remembered() {
    for await (const item of histories) {
      current = item.history;
      yield item;
    }
  }
  const verdicts: ReplayVerdict[] = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: candidate }, remembered())) verdicts.push(verdictOf(result, current));
  return verdicts;
}

async function* single(item: { workflowId: string; history: History }) {
  yield await Promise.resolve(item);
}

/** The histories of one live workflow, one file, or the first `limit` workflows a visibility query lists (the most recent first). */
export function historiesFrom(
  source: { file: string; workflowId?: string } | { client: Client; workflowId: string } | { client: Client; query: string; limit: number },
): AsyncIterable<{ workflowId: string; history: History }> {
  if ('file' in source) return single(loadHistoryFile(source.file, source.workflowId));
  if ('workflowId' in source) {
    const { client, workflowId } = source;
    return (async function* () {
      yield { workflowId, history: await client.workflow.getHandle(workflowId).fetchHistory() };
    })();
  }
  const { client, query, limit } = source;
  return (async function* () {
    const newest: Array<{ workflowId: string; runId: string }> = [];
    for await (const { workflowId, runId } of client.workflow.list({ query })) {
      if (newest.length >= limit) break;
      newest.push({ workflowId, runId });
    }
    for (const { workflowId, runId } of newest) yield { workflowId, history: await client.workflow.getHandle(workflowId, runId).fetchHistory() };
  })();
}
