import { freePort } from '../setup/free-port';
import { startReadyProcess } from './processes';

export type ApiProcess = Awaited<ReturnType<typeof startReadyProcess>>;

/** An API as a process of its own (as a deployment runs several), every port of it free. */
export async function startApiProcess(env: Record<string, string>): Promise<{ proc: ApiProcess; address: string; httpPort: number }> {
  const port = await freePort();
  const httpPort = await freePort();
  const ports = {
    WEFT_GRPC_PORT: port,
    WEFT_AGENT_GRPC_PORT: await freePort(),
    WEFT_LLM_GRPC_PORT: await freePort(),
    WEFT_HTTP_PORT: httpPort,
    WEFT_API_METRICS_PORT: await freePort(),
  };
  const proc = await startReadyProcess(
    'api/main.ts',
    { ...env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
    'api serving gRPC',
  );
  return { proc, address: `127.0.0.1:${port}`, httpPort };
}
