import { createHash } from 'node:crypto';
import { Client } from 'pg';

// A statement with parameters runs as a named prepared statement: Postgres parses and plans it
// once per connection instead of at every call, and the client sends only its parameters after
// the first time. A task's lifecycle runs the same few dozen statements over and over, so this is
// a large share of the store's CPU, in Postgres and in the worker.
//
// Left unnamed: a statement whose rows follow a table's columns (`*`, `t.*`), because a migration
// that adds a column makes a plan prepared before it fail ("cached plan must not change result
// type") in every process still running; and any statement past the first few hundred distinct
// texts, so that a query built from varying text cannot grow every connection's cache for good.

const maxPreparedStatements = 500;
const tableShapedRows = /(^|[\s,(])([A-Za-z_][\w]*\.)?\*(?=\s|,|$)/;
const names = new Map<string, string | undefined>();

function preparedNameOf(text: string): string | undefined {
  if (names.has(text)) return names.get(text);
  if (names.size >= maxPreparedStatements) return undefined;
  const name = tableShapedRows.test(text) ? undefined : `weft_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  names.set(text, name);
  return name;
}

/** pg's client, running each statement with parameters as a named prepared statement (the rules above). */
export class PreparingClient extends Client {
  override query(...args: unknown[]): never {
    const [text, values, ...rest] = args;
    const name = typeof text === 'string' && Array.isArray(values) ? preparedNameOf(text) : undefined;
    const passed = name ? [{ name, text, values }, ...rest] : args;
    return (Client.prototype.query as (...a: unknown[]) => never).apply(this, passed);
  }
}
