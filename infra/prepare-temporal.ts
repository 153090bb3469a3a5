// Readies a Temporal cluster for Weft: registers the namespace when it is missing, then Weft's search
// attributes (`prepare-temporal` in the container image, a Job in deploy/kubernetes). Safe to run
// again. Temporal Cloud namespaces and their search attributes are created in Cloud instead.
import { loadConfig } from '../core/config';
import { ensureNamespace } from './temporal-cluster';
import { ensureSearchAttributes } from './temporal-dev-server';

async function main(): Promise<void> {
  const { address, namespace } = loadConfig().temporal;
  await ensureNamespace(address, namespace);
  await ensureSearchAttributes(address, namespace);
  console.log(`temporal ${address}: namespace ${namespace} and Weft's search attributes are in place`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
