import { status as GrpcStatus } from '@grpc/grpc-js';
import { Client } from 'pg';
import { toServiceError } from '../../api/grpc/grpc-errors';
import { callUnary, createServiceClient } from '../../protos/clients';
import { freePort } from '../setup/free-port';

// A dependency that is down or restarting answers UNAVAILABLE ("retry later"), never INTERNAL:
// clients retry UNAVAILABLE. The errors here are the real ones the drivers raise.

const classify = (err: unknown) => toServiceError(err, () => undefined);
const failureOf = (work: () => Promise<unknown>) =>
  work().then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
const unavailable = { code: GrpcStatus.UNAVAILABLE, details: 'a dependency is unavailable; retry later' };

it('Postgres refusing connections, or ending ours while it shuts down, is UNAVAILABLE', async () => {
  const refused = await failureOf(async () => {
    const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` });
    await client.connect();
  });
  expect(classify(refused)).toEqual(unavailable);

  // As a restart does to every session: the server ends ours with admin_shutdown (57P01).
  const victim = new Client({ connectionString: process.env.DATABASE_URL! });
  victim.on('error', () => undefined);
  await victim.connect();
  const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const admin = new Client({ connectionString: process.env.DATABASE_URL! });
  await admin.connect();
  await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  await admin.end();
  const ended = await failureOf(() => victim.query('SELECT 1'));
  expect(classify(ended)).toEqual(unavailable);
});

it('a gRPC dependency that does not answer is UNAVAILABLE', async () => {
  const client = createServiceClient('orchestrator', `127.0.0.1:${await freePort()}`);
  const down = await failureOf(() => callUnary(client.GetTaskStatus, client, { task_id: 'x' }));
  client.close();
  expect(classify(down)).toEqual(unavailable);
});

it('anything else stays INTERNAL, with nothing of it shown to the caller', () => {
  expect(classify(new Error('a bug'))).toEqual({ code: GrpcStatus.INTERNAL, details: 'internal error' });
});
