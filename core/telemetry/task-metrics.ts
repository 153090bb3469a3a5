import { Counter, Histogram, type Registry } from 'prom-client';
import type { ReadingOutcome } from '../orchestration/model-json';

// What the worker's activities see of tasks: how they end (status and mode) and how long they ran,
// how approvals are decided and how long people took, model steps answered from the cache, and how
// models' plans and verdicts were read.

export interface TaskObserver {
  taskEnded(end: { status: string; mode: string; seconds: number }): void;
  approvalDecided(decision: { status: string; channel: string; seconds: number }): void;
  stepFromCache(model: string): void;
  /** A model's plan or verdict was read: clean, leniently, after a repair round, or not at all. */
  modelOutputRead(kind: 'plan' | 'verdict', outcome: ReadingOutcome): void;
}

export function createTaskMetrics(registry: Registry): TaskObserver {
  const ended = new Counter({ name: 'weft_tasks_ended_total', help: 'Tasks ended, by status and mode', labelNames: ['status', 'mode'], registers: [registry] });
  const duration = new Histogram({
    name: 'weft_task_duration_seconds',
    help: 'From submit to end, by mode',
    labelNames: ['mode'],
    buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers: [registry],
  });
  const decided = new Counter({
    name: 'weft_approvals_decided_total',
    help: 'Approvals ended, by status (approved, rejected, expired) and channel',
    labelNames: ['status', 'channel'],
    registers: [registry],
  });
  const decisionLatency = new Histogram({
    name: 'weft_approval_decision_seconds',
    help: 'From an approval request to its decision',
    labelNames: ['status'],
    buckets: [1, 5, 30, 60, 300, 900, 3600, 14400, 86400],
    registers: [registry],
  });
  const cacheHits = new Counter({
    name: 'weft_model_cache_hits_total',
    help: 'Model steps answered from the response cache',
    labelNames: ['model'],
    registers: [registry],
  });
  const readings = new Counter({
    name: 'weft_model_output_readings_total',
    help: "Models' plans and verdicts read, by kind and outcome (clean, lenient, repaired, failed)",
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  return {
    taskEnded({ status, mode, seconds }) {
      ended.inc({ status, mode });
      duration.observe({ mode }, seconds);
    },
    approvalDecided({ status, channel, seconds }) {
      decided.inc({ status, channel });
      decisionLatency.observe({ status }, seconds);
    },
    stepFromCache: (model) => cacheHits.inc({ model }),
    modelOutputRead: (kind, outcome) => readings.inc({ kind, outcome }),
  };
}
