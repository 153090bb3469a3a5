import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createPool } from '../core/db/database';
import { createRuntimeStore } from '../core/store';
import { ScriptedModelServer } from '../test/model-server/scripted-model-server';
import '../test/setup/quiet-logs';
import { startTestServices } from '../test/setup/test-services';
import { startTestWorker, testTaskInput } from '../test/support/stack';

async function main() {
  const services = await startTestServices();
  const pool = createPool(process.env.DATABASE_URL!, { size: 10 });
  const counts = new Map<string, number>();
  let counting = false;
  const pg = require('pg');
  const q = pg.Client.prototype.query;
  pg.Client.prototype.query = function (...a: any[]) { if (counting) { const t = typeof a[0] === 'string' ? a[0] : a[0]?.text; const k = String(t).slice(0, 110).replace(/\s+/g, ' '); counts.set(k, (counts.get(k) ?? 0) + 1); } return q.apply(this, a); };
  const store = createRuntimeStore(pool);
  const model = new ScriptedModelServer({ demo: true });
  await model.start();
  const taskQueue = `count-${randomUUID()}`;
  const worker = await startTestWorker({ taskQueue, pool, store, modelBaseURL: model.baseURL });
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const run = async () => {
    const input = testTaskInput({ tenantId: 't', taskId: `c-${randomUUID()}`, query: `q ${randomUUID()}` });
    await temporal.workflow.execute('taskWorkflow', { workflowId: input.taskId, taskQueue, args: [input] });
  };
  for (let i = 0; i < 3; i++) await run();
  counting = true;
  const n = 10;
  for (let i = 0; i < n; i++) await run();
  counting = false;
  let total = 0;
  for (const [k, v] of [...counts.entries()].sort((a, b) => b[1] - a[1])) { total += v; console.log((v / n).toFixed(1), k); }
  console.log('total per task', total / n);
  await worker.stop(); await connection.close(); await model.stop(); await pool.end(); await services.stop();
}
main().catch((e) => { console.error(e); process.exit(1); });
