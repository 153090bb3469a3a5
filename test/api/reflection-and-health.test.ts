import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startTestStack, type TestStack } from '../support/stack';

// Tools such as grpcurl find the services through server reflection; load balancers probe health.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

function client(protoFile: string, service: string, port = stack.api.port) {
  const definition = protoLoader.loadSync(protoFile, { keepCase: true, enums: String });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as Record<string, unknown>;
  const ctor = service.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], loaded) as typeof grpc.Client;
  return new ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
}

it('answers the standard health check as SERVING', async () => {
  const health = client(path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto/health/v1/health.proto'), 'grpc.health.v1.Health');
  const status = await new Promise<{ status: string }>((resolve, reject) =>
    health.Check!({ service: 'shannon.orchestrator.OrchestratorService' }, (err: Error | null, res: { status: string }) => (err ? reject(err) : resolve(res))),
  );
  expect(status.status).toBe('SERVING');
  health.close();
});

it('each port reflects and reports health for exactly its own services', async () => {
  const reflectionProto = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');
  const healthProto = path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto/health/v1/health.proto');
  const expected: Array<[number, string[]]> = [
    [stack.api.port, ['ai.AIService', 'shannon.orchestrator.OrchestratorService', 'shannon.orchestrator.StreamingService', 'shannon.session.SessionService']],
    [stack.api.agentPort, ['shannon.agent.AgentService']],
    [stack.api.llmPort, ['shannon.llm.LLMService']],
  ];
  for (const [port, services] of expected) {
    const reflection = client(reflectionProto, 'grpc.reflection.v1.ServerReflection', port);
    const call = reflection.ServerReflectionInfo!() as grpc.ClientDuplexStream<object, { list_services_response?: { service: Array<{ name: string }> } }>;
    const response = await new Promise<{ list_services_response?: { service: Array<{ name: string }> } }>((resolve, reject) => {
      call.once('data', resolve);
      call.once('error', reject);
      call.write({ list_services: '*' });
    });
    call.end();
    reflection.close();
    const listed = response.list_services_response!.service.map((s) => s.name);
    // Its own services, the health service (grpcurl can call it by reflection) and reflection itself.
    expect(listed.filter((name) => !name.startsWith('grpc.reflection.')).sort()).toEqual([...services, 'grpc.health.v1.Health'].sort());
    const health = client(healthProto, 'grpc.health.v1.Health', port);
    for (const service of services) {
      const status = await new Promise<{ status: string }>((resolve, reject) =>
        health.Check!({ service }, (err: Error | null, res: { status: string }) => (err ? reject(err) : resolve(res))),
      );
      expect(status.status).toBe('SERVING');
    }
    health.close();
  }
});
