import { randomUUID } from 'node:crypto';
import { createPool } from '../../core/db/database';
import { commitWith, withTransaction } from '../../core/db/transaction';

// The pool's clients pipeline: a transaction's BEGIN goes out with its first statement, and a
// lifecycle change sends the statements that do not wait for each other's answers together. A
// transaction stays all or nothing, and the error a caller sees is the statement's that failed,
// also when its COMMIT goes out with its last statements.

const pool = createPool(process.env.DATABASE_URL!);
const table = `pipelined_${randomUUID().replace(/-/g, '')}`;

beforeAll(() => pool.query(`CREATE TABLE ${table} (id text PRIMARY KEY)`));
afterAll(async () => {
  await pool.query(`DROP TABLE ${table}`);
  await pool.end();
});

const insert = (db: { query: typeof pool.query }, id: string) => db.query(`INSERT INTO ${table} (id) VALUES ($1)`, [id]);
const stored = async (...ids: string[]) =>
  (await pool.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1) ORDER BY id`, [ids])).rows.map((row) => row.id);

describe('a transaction whose statements are sent together', () => {
  it('commits every one of them when all succeed', async () => {
    const ids = ['a', 'b', 'c'].map((name) => `${name}-${randomUUID()}`);
    await withTransaction(pool, (tx) => Promise.all(ids.map((id) => insert(tx, id))));
    expect(await stored(...ids)).toEqual([...ids].sort());
  });

  it("writes none of them when a later one fails, and throws that statement's own error", async () => {
    const taken = `taken-${randomUUID()}`;
    await insert(pool, taken);
    const first = `first-${randomUUID()}`;
    const failure = withTransaction(pool, (tx) => Promise.all([insert(tx, first), insert(tx, taken)]));
    await expect(failure).rejects.toMatchObject({ code: '23505', message: expect.stringContaining('duplicate key') });
    expect(await stored(first)).toEqual([]);
  });

  it('writes none of them when an earlier one fails: the statements behind it never apply', async () => {
    const taken = `taken-${randomUUID()}`;
    await insert(pool, taken);
    const behind = `behind-${randomUUID()}`;
    const failure = withTransaction(pool, (tx) => Promise.all([insert(tx, taken), insert(tx, behind)]));
    await expect(failure).rejects.toMatchObject({ code: '23505' });
    expect(await stored(behind)).toEqual([]);
  });

  it('leaves the connection usable: the next transaction on the pool commits', async () => {
    const taken = `taken-${randomUUID()}`;
    await insert(pool, taken);
    // Every connection of the pool goes through a failed pipelined transaction first.
    await Promise.allSettled(Array.from({ length: 12 }, () => withTransaction(pool, (tx) => Promise.all([insert(tx, taken), insert(tx, randomUUID())]))));
    const after = `after-${randomUUID()}`;
    await withTransaction(pool, (tx) => insert(tx, after));
    expect(await stored(after)).toEqual([after]);
  });
});

describe('a transaction ended with its last statements (commitWith)', () => {
  it('commits them with everything the transaction wrote before', async () => {
    const [before, ...last] = ['before', 'last-a', 'last-b'].map((name) => `${name}-${randomUUID()}`);
    await withTransaction(pool, async (tx) => {
      await insert(tx, before!);
      await commitWith(tx, Promise.all(last.map((id) => insert(tx, id))));
    });
    expect(await stored(before!, ...last)).toEqual([before!, ...last].sort());
  });

  it("writes nothing of the transaction when one of them fails, and throws that statement's own error", async () => {
    const taken = `taken-${randomUUID()}`;
    await insert(pool, taken);
    const [before, last] = [`before-${randomUUID()}`, `last-${randomUUID()}`];
    const failure = withTransaction(pool, async (tx) => {
      await insert(tx, before);
      await commitWith(tx, Promise.all([insert(tx, last), insert(tx, taken)]));
    });
    await expect(failure).rejects.toMatchObject({ code: '23505', message: expect.stringContaining('duplicate key') });
    expect(await stored(before, last)).toEqual([]);
  });

  it('refuses a statement sent after the COMMIT, which would run outside the transaction', async () => {
    const [last, late] = [`last-${randomUUID()}`, `late-${randomUUID()}`];
    const failure = withTransaction(pool, async (tx) => {
      await commitWith(tx, insert(tx, last));
      await insert(tx, late);
    });
    await expect(failure).rejects.toThrow("a statement sent after its transaction's COMMIT");
    expect(await stored(last)).toEqual([last]);
    expect(await stored(late)).toEqual([]);
    // The connection goes back to the pool as a plain one: the next transactions run as usual.
    const after = `after-${randomUUID()}`;
    await Promise.all(Array.from({ length: 12 }, (_, i) => withTransaction(pool, (tx) => insert(tx, `${after}-${i}`))));
    expect(await stored(`${after}-0`)).toEqual([`${after}-0`]);
  });

  it('is refused outside a transaction', async () => {
    await expect(commitWith(pool, Promise.resolve())).rejects.toThrow('commitWith ends a transaction');
  });
});
