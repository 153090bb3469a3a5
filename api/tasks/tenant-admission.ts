import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { exhausted } from './task-errors';
import { tenantIdKey } from '../../workflows/search-attributes';

// Each tenant's share of the system: task submissions per minute (counted in Postgres, so shared by
// every API process) and tasks running at once (counted by Temporal's visibility, which every
// process sees; a burst may pass the cap by the few tasks visibility has not indexed yet). A tenant
// over its share gets RESOURCE_EXHAUSTED; the others are not affected.

export interface TenantQuotas {
  /** Task submissions per tenant per minute; 0: unlimited. */
  submitsPerMinute: number;
  /** Tasks of one tenant running (or queued) at once; 0: unlimited. */
  maxRunningTasks: number;
}

export const unlimitedQuotas: TenantQuotas = { submitsPerMinute: 0, maxRunningTasks: 0 };

export interface TenantAdmission {
  /** Refuses (RESOURCE_EXHAUSTED) a new task of a tenant over its share. */
  admitTask(tenantId: string): Promise<void>;
}

/** A Temporal visibility query's string literal. */
const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function createTenantAdmission(deps: { pool: Pool; temporal: Client }, quotas: TenantQuotas): TenantAdmission {
  const submits =
    quotas.submitsPerMinute > 0
      ? new RateLimiterPostgres({
          storeClient: deps.pool,
          tableName: 'weft_rate_limits',
          tableCreated: true,
          clearExpiredByTimeout: false,
          points: quotas.submitsPerMinute,
          duration: 60,
          keyPrefix: 'tenant-submits',
          // A tenant past its quota is refused from memory until its minute is over: a flood of
          // refused calls costs no database work.
          inMemoryBlockOnConsumed: quotas.submitsPerMinute,
        })
      : undefined;
  return {
    async admitTask(tenantId) {
      try {
        await submits?.consume(tenantId);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        throw exhausted(`your tenant has submitted ${quotas.submitsPerMinute} tasks this minute, its limit; retry in ${Math.ceil(err.msBeforeNext / 1000)} s`);
      }
      if (quotas.maxRunningTasks <= 0) return;
      const { count } = await deps.temporal.workflow.count(
        `WorkflowType = "taskWorkflow" AND ExecutionStatus = "Running" AND ${tenantIdKey.name} = ${quoted(tenantId)}`,
      );
      if (count >= quotas.maxRunningTasks) {
        throw exhausted(`your tenant has ${count} tasks running, its limit is ${quotas.maxRunningTasks}; retry when some have finished`);
      }
    },
  };
}
