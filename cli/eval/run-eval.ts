import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { divergedSteps } from '../../core/eval/diverged-steps';
import { totalsOf, type EvalCaseResult, type EvalReport } from '../../core/eval/eval-report';
import { gateFailures, type Gate } from '../../core/eval/gate';
import { expectationOf, score, type ScorerKind } from '../../core/eval/scorers';
import type { EvalToolPolicy } from '../../core/tasks/run/eval-tools';
import type { RuntimeStore } from '../../core/store';
import type { TaskRecord } from '../../core/tasks/task-index';
import { startInputOf } from '../start-input';
import { candidateInput, type Candidate } from './candidate';
import type { EvalCaseSpec } from './eval-cases';
import { taskJudge } from './judge';
import { latencyOf, runToEnd } from './task-results';

// `weft eval`: each recorded task run again as a task of the eval under the candidate, its tool
// calls answered from the record, then scored and set beside the recorded run.

export interface EvalDeps {
  pool: Pool;
  store: RuntimeStore;
  temporal: Client;
  taskQueue: string;
}

export interface EvalOptions {
  evalId: string;
  candidate: Candidate;
  tools: EvalToolPolicy;
  /** How cases without an expectation of their own are scored against the recorded answer. */
  scorer: { kind: ScorerKind; expect?: string; tolerance?: number };
  concurrency: number;
  gate?: Gate;
}

/** The case's task id in the eval: the same case of the same eval is the same task. */
const candidateTaskId = (evalId: string, index: number) => `task-eval-${evalId}-${index + 1}`;

const figuresOf = (task: TaskRecord) => ({ answer: task.result, tokens: task.usage.totalTokens, costUsd: task.usage.costUsd, latencyMs: latencyOf(task) });

async function runCase(deps: EvalDeps, options: EvalOptions, spec: EvalCaseSpec, index: number): Promise<EvalCaseResult> {
  const { recorded } = spec;
  // Before anything runs: a scorer that cannot read the recorded answer stops the eval at once.
  const expectation = spec.expectation ?? expectationOf(options.scorer.kind, recorded.result, options.scorer.expect, options.scorer.tolerance);
  const recordedInput = await startInputOf(deps.temporal, recorded.workflowId);
  const evaluation = { evalId: options.evalId, fromTaskId: recorded.taskId, tools: options.tools };
  const input = candidateInput({ ...recordedInput, taskId: recorded.taskId }, candidateTaskId(options.evalId, index), evaluation, options.candidate);
  const candidate = await runToEnd(deps, input);
  const judge = taskJudge(deps, options.evalId, { ...recordedInput, taskId: recorded.taskId });
  const scored =
    candidate.status === 'COMPLETED'
      ? await score(expectation, candidate.result, { question: recorded.query, reference: recorded.result, judge })
      : { scorer: options.scorer.kind, score: 0, reason: `the task ended ${candidate.status}` };
  return {
    name: spec.name,
    recordedTaskId: recorded.taskId,
    candidateTaskId: candidate.taskId,
    status: candidate.status,
    errorMessage: candidate.errorMessage,
    recorded: figuresOf(recorded),
    candidate: figuresOf(candidate),
    score: scored,
    diverged: await divergedSteps(deps.pool, deps.store, recorded.taskId, candidate.taskId),
  };
}

/** Runs every case, `concurrency` at a time, in the cases' order. */
export async function runEval(deps: EvalDeps, options: EvalOptions, specs: EvalCaseSpec[]): Promise<EvalReport> {
  const results: EvalCaseResult[] = new Array<EvalCaseResult>(specs.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < specs.length; i = next++) results[i] = await runCase(deps, options, specs[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, specs.length) }, lane));
  const totals = totalsOf(results);
  return { evalId: options.evalId, cases: results, totals, failedOn: options.gate ? gateFailures(options.gate, totals) : [] };
}
