import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { findJson, isRecord, NotJson } from '../../core/orchestration/model-json';
import type { Judge } from '../../core/eval/scorers';
import { recordOnlyPolicy } from '../../core/tasks/run/eval-tools';
import type { TaskWorkflowInput } from '../../workflows/task-workflow-types';
import { runToEnd } from './task-results';

// The LLM judge: a rubric, the question, the recorded answer and the candidate's, put to a model
// as a task of the eval (no tools). Its task id is the hash of what it was shown, so the same
// judgement asked again is the same task: its answer is read, not asked for again, and its model
// call is recorded like any task's.

const judgeInstructions =
  'You grade an answer by a rubric. Reply with one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.';

function judgePrompt(rubric: string, question: string, answer: string, reference: string): string {
  return [`Rubric: ${rubric}`, `Question: ${question}`, `Reference answer (recorded): ${reference}`, `Answer to grade: ${answer}`].join('\n\n');
}

/** The judge's score and reason from its answer; an answer without one scores 0 and says so. */
export function judgementOf(text: string): { score: number; reason: string } {
  const value = findJson(text, 'the judge was asked for {"score", "reason"}', []);
  if (value instanceof NotJson) return { score: 0, reason: `the judge gave no score: ${value.describe()}` };
  const score = isRecord(value) ? Number(value.score) : Number.NaN;
  if (!Number.isFinite(score) || score < 0 || score > 1)
    return { score: 0, reason: `the judge gave no score from 0 to 1: ${JSON.stringify(value).slice(0, 120)}` };
  return { score, reason: isRecord(value) && typeof value.reason === 'string' ? `judge: ${value.reason}` : 'judge' };
}

/** A judge whose tasks run as `recorded`'s tenant and user, under its budgets, as cases of `evalId`. */
export function taskJudge(deps: { pool: Pool; temporal: Client; taskQueue: string }, evalId: string, recorded: TaskWorkflowInput): Judge {
  return async (rubric, question, answer, reference) => {
    const prompt = judgePrompt(rubric, question, answer, reference);
    const key = createHash('sha256').update(`${recorded.tenantId}\n${judgeInstructions}\n${prompt}`).digest('hex').slice(0, 32);
    const judged = await runToEnd(deps, {
      taskId: `task-judge-${key}`,
      tenantId: recorded.tenantId,
      userId: recorded.userId,
      ...(recorded.roles ? { roles: recorded.roles } : {}),
      sessionId: '',
      query: prompt,
      instructions: judgeInstructions,
      autoDecompose: false,
      requireApproval: false,
      allowedTools: [],
      settings: { ...recorded.settings, cacheModelSteps: false },
      eval: { evalId, fromTaskId: recorded.taskId, tools: recordOnlyPolicy },
    });
    if (judged.status !== 'COMPLETED') return { score: 0, reason: `the judge's task ${judged.taskId} ended ${judged.status}: ${judged.errorMessage}` };
    return judgementOf(judged.result);
  };
}
