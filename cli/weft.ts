#!/usr/bin/env -S npx tsx
// The `weft` command: talk to a running Weft API (`npm run weft -- --help`).
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Pool } from 'pg';
import { createApiKey, isRole, roles } from '../core/auth/api-keys';
import { listApiKeys, revokeApiKey, rotateApiKey } from '../core/auth/key-management';
import { loadConfig } from '../core/config';
import { createPool } from '../core/db/database';
import { devApiKeyFile } from '../infra/dev-api-key';
import type { ServiceError } from '@grpc/grpc-js';
import { callUnary, createOrchestratorClient } from '../protos/clients';
import { forkTask } from './fork';
import { replay } from './replay';
import { tasksSince, verifyTask } from './verify';
import { Client, Connection } from '@temporalio/client';
import { createRuntimeStore, type RuntimeStore } from '../core/store';
import type { GetTaskStatusResponse__Output } from '../protos/generated/shannon/orchestrator/GetTaskStatusResponse';
import type { SubmitTaskRequest } from '../protos/generated/shannon/orchestrator/SubmitTaskRequest';
import type { SubmitTaskResponse__Output } from '../protos/generated/shannon/orchestrator/SubmitTaskResponse';

const program = new Command('weft').description('Weft: durable AI-agent orchestration on Temporal');
program.option('--api <address>', 'Weft gRPC API address', process.env.WEFT_API_ADDRESS ?? '127.0.0.1:50052');

/** A commander option parser for a number >= 0. */
function positiveNumberOption(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`expected a number >= 0, got "${text}"`);
  return value;
}

const unfinished = new Set(['TASK_STATUS_QUEUED', 'TASK_STATUS_RUNNING']);

/** WEFT_API_KEY, or the development key `make up` wrote. */
function apiKey(): string | undefined {
  if (process.env.WEFT_API_KEY) return process.env.WEFT_API_KEY;
  return existsSync(devApiKeyFile) ? readFileSync(devApiKeyFile, 'utf8').trim() : undefined;
}

function client() {
  const key = apiKey();
  return createOrchestratorClient(program.opts<{ api: string }>().api, key ? { apiKey: key } : {});
}

function getStatus(taskId: string) {
  const orchestrator = client();
  return callUnary<{ task_id: string; include_details: boolean }, GetTaskStatusResponse__Output>(
    orchestrator.GetTaskStatus,
    orchestrator,
    { task_id: taskId, include_details: true },
  ).finally(() => orchestrator.close());
}

function printStatus(status: GetTaskStatusResponse__Output): void {
  const usage = status.metrics?.token_usage;
  console.log(`task      ${status.task_id}`);
  console.log(`status    ${status.status.replace('TASK_STATUS_', '')}  (progress ${Math.round(status.progress * 100)}%)`);
  if (status.result) console.log(`result    ${status.result}`);
  if (status.error_message) console.log(`error     ${status.error_message}`);
  if (usage && usage.total_tokens > 0) {
    console.log(`tokens    ${usage.total_tokens} (prompt ${usage.prompt_tokens}, completion ${usage.completion_tokens})  model ${usage.model}`);
  }
}

program
  .command('submit')
  .description('submit a task')
  .argument('<query>', 'what the task should do')
  .option('--user <id>', "act for this user of the key's tenant (needs the act_for_users role); the key's own user by default")
  .option('--session <id>', 'session id to continue')
  .option('--task-id <id>', 'task id (a repeated submit returns the same task)')
  .option('--watch', 'wait and print the result')
  .option('--no-decompose', 'always one agent (STANDARD); by default the complexity analysis picks the mode')
  .option('--approval', 'require human approval before the task runs')
  .action(async (query: string, options: { user?: string; session?: string; taskId?: string; watch?: boolean; decompose: boolean; approval?: boolean }) => {
    const orchestrator = client();
    const request: SubmitTaskRequest = {
      query,
      auto_decompose: options.decompose,
      require_approval: Boolean(options.approval),
      metadata: { user_id: options.user ?? '', session_id: options.session ?? '', task_id: options.taskId ?? '' },
    };
    const submitted = await callUnary<SubmitTaskRequest, SubmitTaskResponse__Output>(
      orchestrator.SubmitTask,
      orchestrator,
      request,
    ).finally(() => orchestrator.close());
    console.log(`submitted ${submitted.task_id} (workflow ${submitted.workflow_id}): ${submitted.message}`);
    if (!options.watch) return;
    let last = '';
    for (;;) {
      const status = await getStatus(submitted.task_id);
      if (status.status !== last) console.error(`... ${status.status.replace('TASK_STATUS_', '')}`);
      last = status.status;
      if (!unfinished.has(status.status)) {
        printStatus(status);
        if (status.status !== 'TASK_STATUS_COMPLETED') process.exitCode = 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });

program
  .command('status')
  .description("show a task's status and result")
  .argument('<task>', 'task id')
  .action(async (taskId: string) => printStatus(await getStatus(taskId)));

const keys = program.command('keys').description('manage API keys (talks to the database named by DATABASE_URL)');

/** Runs one key operation on a one-connection pool. */
async function withKeyStore<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = createPool(loadConfig().databaseUrl, 1);
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

keys
  .command('create')
  .description('create an API key; it is shown once')
  .requiredOption('--tenant <id>', 'tenant the key belongs to')
  .requiredOption('--user <id>', 'user the key acts as')
  .option('--role <role...>', `any of ${roles.join(', ')}`, [])
  .option('--expires-in-days <days>', 'the key stops working after this many days', positiveNumberOption)
  .action(async (options: { tenant: string; user: string; role: string[]; expiresInDays?: number }) => {
    const unknown = options.role.filter((role) => !isRole(role));
    if (unknown.length > 0) throw new Error(`unknown role ${unknown.join(', ')}: roles are ${roles.join(', ')}`);
    const expiresAt = options.expiresInDays ? new Date(Date.now() + options.expiresInDays * 86_400_000) : undefined;
    const principal = { tenantId: options.tenant, userId: options.user, roles: options.role.filter(isRole) };
    console.log(await withKeyStore((pool) => createApiKey(pool, principal, expiresAt ? { expiresAt } : {})));
  });

keys
  .command('list')
  .description('list keys (never their secrets)')
  .option('--tenant <id>', 'only this tenant\'s keys')
  .action(async (options: { tenant?: string }) => {
    const found = await withKeyStore((pool) => listApiKeys(pool, options.tenant ? { tenantId: options.tenant } : {}));
    for (const key of found) {
      const state = key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : key.expiresAt ? `expires ${key.expiresAt.toISOString()}` : 'active';
      console.log([key.keyId, key.tenantId, key.userId, key.roles.join(',') || '-', state].join('\t'));
    }
  });

keys
  .command('revoke')
  .description('revoke a key now: every API process refuses it at once and ends its open streams')
  .argument('<key-id>', 'the id between "weft_" and the secret, as `keys list` shows it')
  .action(async (keyId: string) => {
    await withKeyStore((pool) => revokeApiKey(pool, keyId));
    console.log(`revoked ${keyId}`);
  });

keys
  .command('rotate')
  .description('a new key for the same tenant, user and roles; the old one is revoked (or expires after --grace-seconds)')
  .argument('<key-id>', 'the key to replace')
  .option('--grace-seconds <seconds>', 'keep the old key working this long', positiveNumberOption, 0)
  .action(async (keyId: string, options: { graceSeconds: number }) => {
    console.log(await withKeyStore((pool) => rotateApiKey(pool, keyId, options.graceSeconds)));
  });

program
  .command('replay')
  .description('replay a live workflow, or an exported history, against the current workflow code')
  .argument('[workflow-id]', 'the workflow to fetch from Temporal (or the recorded id of --file)')
  .option('--file <history.json>', 'a history exported as JSON (temporal workflow show --output json)')
  .option('--temporal <address>', 'Temporal frontend (default TEMPORAL_ADDRESS; TLS and API key from the TEMPORAL_* settings)')
  .option('--namespace <namespace>', 'Temporal namespace (default TEMPORAL_NAMESPACE)')
  .action(async (workflowId: string | undefined, options: { file?: string; temporal?: string; namespace?: string }) => {
    if (!workflowId && !options.file) throw new Error('give a workflow id or --file');
    const { temporal } = loadConfig();
    const matches = await replay({
      ...(workflowId ? { workflowId } : {}),
      ...(options.file ? { file: options.file } : {}),
      temporal: { ...temporal.connection, ...(options.temporal ? { address: options.temporal } : {}) },
      namespace: options.namespace ?? temporal.namespace,
    });
    process.exitCode = matches ? 0 : 1;
  });

/** What an operator's command reads and starts: the database, the store and Temporal, closed after `work`. */
async function withOperatorDeps<T>(work: (deps: { pool: Pool; store: RuntimeStore; temporal: Client; taskQueue: string }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const pool = createPool(config.databaseUrl, 2);
  const connection = await Connection.connect(config.temporal.connection);
  try {
    const temporal = new Client({ connection, namespace: config.temporal.namespace });
    return await work({ pool, store: createRuntimeStore(pool), temporal, taskQueue: config.temporal.taskQueue });
  } finally {
    await connection.close();
    await pool.end();
  }
}

program
  .command('verify')
  .description("check tasks against Temporal's view and the store's invariants; exit code 1 on any disagreement")
  .argument('[tasks...]', 'task ids (default: every task created since --since)')
  .option('--since <time>', 'an ISO time, or hours back like 24h', '24h')
  .action(async (taskIds: string[], options: { since: string }) => {
    const hours = /^(\d+(?:\.\d+)?)h$/.exec(options.since);
    const since = hours ? new Date(Date.now() - Number(hours[1]) * 3_600_000) : new Date(options.since);
    if (Number.isNaN(since.getTime())) throw new Error(`--since must be an ISO time or hours like 24h, not "${options.since}"`);
    await withOperatorDeps(async (deps) => {
      const tasks = taskIds.length > 0 ? taskIds : await tasksSince(deps.pool, since);
      const problems = (await Promise.all(tasks.map((taskId) => verifyTask(deps, taskId)))).flat();
      for (const problem of problems) console.log(problem);
      console.log(problems.length === 0 ? `OK: ${tasks.length} tasks verified` : `${problems.length} disagreements in ${tasks.length} tasks`);
      process.exitCode = problems.length === 0 ? 0 : 1;
    });
  });

program
  .command('fork')
  .description("run a task again as a new task from its step N: earlier steps reuse the task's recorded model replies and tool results")
  .argument('<task>', 'the task to fork')
  .requiredOption('--from-step <n>', 'the first model step (1-based) that runs fresh', positiveNumberOption)
  .option('--task-queue <queue>', "the workers' task queue (default WEFT_TASK_QUEUE)")
  .action(async (taskId: string, options: { fromStep: number; taskQueue?: string }) => {
    const forkId = await withOperatorDeps((deps) => forkTask({ ...deps, ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}) }, taskId, options.fromStep));
    console.log(`forked ${taskId} from step ${options.fromStep} as ${forkId}`);
    console.log(`follow it with: weft status ${forkId}`);
  });

program.parseAsync().catch((err: ServiceError | Error) => {
  const code = 'code' in err && typeof err.code === 'number' ? ` (gRPC status ${err.code})` : '';
  console.error(`weft: ${'details' in err && err.details ? err.details : err.message}${code}`);
  process.exit(1);
});
