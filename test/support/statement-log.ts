import type { Pool, PoolClient } from 'pg';

/** A statement a pool's client sent, and the round trip it went out in. */
export interface LoggedStatement {
  text: string;
  roundTrip: number;
}

/**
 * Every statement the clients of a pool send, counted at the client (pg_stat_statements would need
 * the shared Postgres reconfigured). A round trip is a wait for Postgres: a statement sent while
 * none of the pool's statements awaits its answer starts one; a statement pipelined behind others
 * still in flight (database.ts) rides in theirs. Attach before the pool makes its first client.
 */
export function logStatements(pool: Pool) {
  let statements: LoggedStatement[] = [];
  let roundTrips = 0;
  let inFlight = 0;
  const sent = (text: string) => {
    if (inFlight === 0) roundTrips++;
    inFlight++;
    statements.push({ text, roundTrip: roundTrips });
  };
  const answered = () => {
    inFlight--;
  };
  pool.on('connect', (client: PoolClient) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const [first] = args;
      sent(typeof first === 'string' ? first : String((first as { text?: string }).text));
      const callback = args.at(-1);
      if (typeof callback === 'function')
        return send(...args.slice(0, -1), (...answer: unknown[]) => {
          answered();
          return (callback as (...a: unknown[]) => unknown)(...answer);
        });
      const answer = send(...args) as Promise<unknown>;
      answer.then(answered, answered);
      return answer;
    }) as PoolClient['query'];
  });
  return {
    /** What was sent since the last clear. */
    statements: () => statements,
    roundTrips: () => new Set(statements.map((s) => s.roundTrip)).size,
    clear() {
      statements = [];
      roundTrips = 0;
    },
  };
}
