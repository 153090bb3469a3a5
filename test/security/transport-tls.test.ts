import { once } from 'node:events';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { ephemeralListen, startApiServer, type ApiServer } from '../../api/server';
import { loadConfig } from '../../core/config';
import { createOrchestratorClient, unaryCall } from '../../protos/clients';
import { startReadyProcess, stop } from '../support/processes';
import { waitForFinish } from '../support/grpc';
import { startTestStack, type TestStack } from '../support/stack';
import { makeTestCertificates, type TestCertificates } from '../support/tls-certs';

// Transport security: the API's gRPC and REST ports with TLS, and with client certificates (mTLS);
// and the API and a production worker process reaching Temporal through TLS with client
// certificates, configured only by the SDK's TEMPORAL_* settings. The dev server speaks no TLS, so
// a TLS-terminating proxy that demands a client certificate stands in front of it.

let stack: TestStack;
let certs: TestCertificates;
const servers: ApiServer[] = [];
beforeAll(async () => {
  stack = await startTestStack();
  certs = makeTestCertificates();
});
afterAll(async () => {
  for (const server of servers) await server.shutdown();
  await stack.stop();
});

async function tlsApi(mutual: boolean): Promise<ApiServer> {
  const tls = { certFile: certs.files.serverCert, keyFile: certs.files.serverKey, ...(mutual ? { clientCaFile: certs.files.ca } : {}) };
  const api = await startApiServer(stack.apiDeps, { ...ephemeralListen(), tls });
  servers.push(api);
  return api;
}

/** ListTasks over gRPC with these credentials: OK, or the failure's status. */
async function grpcAnswer(port: number, credentials: grpc.ChannelCredentials): Promise<string> {
  const client = createOrchestratorClient(`127.0.0.1:${port}`, { apiKey: stack.apiKey, credentials });
  try {
    await unaryCall(client, 'ListTasks', {}, { deadlineMs: 5_000 });
    return 'OK';
  } catch (err) {
    return grpc.status[(err as grpc.ServiceError).code]!;
  } finally {
    client.close();
  }
}

/** GET /api/v1/tasks over HTTPS, with or without a client certificate: the HTTP status, or the connection's error code. */
function restAnswer(port: number, withClientCert: boolean): Promise<string> {
  return new Promise((resolve) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        // The certificate names localhost too; an IP is no server name for SNI.
        servername: 'localhost',
        port,
        path: '/api/v1/tasks',
        headers: { authorization: `Bearer ${stack.apiKey}` },
        ca: certs.read('ca'),
        ...(withClientCert ? { cert: certs.read('clientCert'), key: certs.read('clientKey') } : {}),
      },
      (response) => {
        response.resume();
        resolve(String(response.statusCode));
      },
    );
    request.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    request.end();
  });
}

const trusting = () => grpc.credentials.createSsl(certs.read('ca'));
const withClientCert = () => grpc.credentials.createSsl(certs.read('ca'), certs.read('clientKey'), certs.read('clientCert'));

it('serves gRPC and REST over TLS, and refuses plaintext', async () => {
  const api = await tlsApi(false);
  expect(await grpcAnswer(api.port, trusting())).toBe('OK');
  expect(await grpcAnswer(api.agentPort, trusting())).toBe('UNIMPLEMENTED'); // the agent port serves AgentService only: TLS itself works
  expect(await grpcAnswer(api.port, grpc.credentials.createInsecure())).toBe('UNAVAILABLE');
  expect(await restAnswer(api.httpPort, false)).toBe('200');
  const plain = await fetch(`http://127.0.0.1:${api.httpPort}/api/v1/tasks`).then(
    (response) => String(response.status),
    () => 'refused',
  );
  expect(plain).not.toBe('200');
});

it('with a client CA, every port demands a client certificate it signed', async () => {
  const api = await tlsApi(true);
  expect(await grpcAnswer(api.port, trusting())).toBe('UNAVAILABLE');
  expect(await grpcAnswer(api.port, withClientCert())).toBe('OK');
  expect(await restAnswer(api.httpPort, false)).not.toBe('200');
  expect(await restAnswer(api.httpPort, true)).toBe('200');
});

/** A TLS terminator in front of the dev server that accepts only clients with a certificate of the test CA. */
async function tlsProxyToTemporal(): Promise<{ address: string; connections: number; server: TlsServer }> {
  const [host, port] = process.env.TEMPORAL_ADDRESS!.split(':');
  const proxy = { address: '', connections: 0, server: undefined as unknown as TlsServer };
  proxy.server = createTlsServer(
    { cert: certs.read('serverCert'), key: certs.read('serverKey'), ca: certs.read('ca'), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
    (socket) => {
      proxy.connections += 1;
      const upstream = netConnect(Number(port), host!);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    },
  );
  proxy.server.listen(0, '127.0.0.1');
  await once(proxy.server, 'listening');
  proxy.address = `127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
  return proxy;
}

it('connects the API and a production worker to Temporal over mTLS from the TEMPORAL_* settings alone', async () => {
  const proxy = await tlsProxyToTemporal();
  const serverTrusted = {
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.files.ca,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
  };
  const temporalTls = { ...serverTrusted, TEMPORAL_TLS_CLIENT_CERT_PATH: certs.files.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: certs.files.clientKey };
  const taskQueue = `tls-${Date.now()}`;
  // The worker's own entry point, as deployed.
  const worker = await startReadyProcess(
    'workers/main.ts',
    {
      ...temporalTls,
      WEFT_TASK_QUEUE: taskQueue,
      WEFT_METRICS_PORT: '0',
      WEFT_LLM_BASE_URL: stack.model.baseURL,
      WEFT_LLM_MODEL: 'tls-model',
      WEFT_WORKFLOW_BUNDLE: process.env.WEFT_TEST_WORKFLOW_BUNDLE!,
    },
    'worker polling task queue',
  );
  // The API's connection, built as api/main.ts builds it.
  const connection = await Connection.connect(loadConfig({ ...process.env, ...temporalTls }).temporal.connection);
  try {
    const api = await startApiServer({ ...stack.apiDeps, temporal: new Client({ connection }), taskQueue }, ephemeralListen());
    servers.push(api);
    const client = createOrchestratorClient(`127.0.0.1:${api.port}`, { apiKey: stack.apiKey });
    stack.model.on('over tls', { content: 'secure answer' });
    const submitted = await unaryCall(client, 'SubmitTask', { query: 'over tls' });
    expect((await waitForFinish(client, submitted.task_id)).result).toBe('secure answer');
    client.close();
    expect(proxy.connections).toBeGreaterThanOrEqual(2);

    // Without a client certificate the proxy (like a cluster requiring mTLS) lets nobody in.
    await expect(Connection.connect({ ...loadConfig({ ...process.env, ...serverTrusted }).temporal.connection, connectTimeout: 3_000 })).rejects.toThrow();
  } finally {
    await stop(worker);
    await connection.close();
    proxy.server.close();
  }
}, 90_000);
