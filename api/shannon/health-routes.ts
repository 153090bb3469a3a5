import { healthAnswer, metricsAnswer, readinessAnswer } from './shannon-schemas';
import { weftVersion } from '../../core/version';
import { metricsAuthorized } from '../../core/telemetry/ops-server';
import type { ShannonAnswer, ShannonDeps, ShannonRoute } from './shannon-route';

// Shannon's health checks on the REST port: /health answers while the process serves, /readiness
// once Postgres and Temporal both answer, /metrics is the API's Prometheus text.

async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await probe();
    return 'ok';
  } catch (err) {
    return `unavailable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

async function readiness(deps: ShannonDeps) {
  const [postgres, temporal] = await Promise.all([
    check(() => deps.pool.query('SELECT 1')),
    check(() => deps.temporal.connection.workflowService.getSystemInfo({})),
  ]);
  const ready = postgres === 'ok' && temporal === 'ok';
  return {
    status: ready ? 200 : 503,
    body: { status: ready ? 'ready' : 'not_ready', version: weftVersion, time: new Date().toISOString(), checks: { postgres, temporal } },
  };
}

export const healthRoutes: ShannonRoute[] = [
  {
    method: 'GET',
    path: '/health',
    answer: healthAnswer,
    summary: 'The API process serves (no dependency is checked)',
    tag: 'health',
    public: true,
    handle: async () => ({ body: { status: 'healthy', version: weftVersion, time: new Date().toISOString() } }),
  },
  {
    method: 'GET',
    path: '/readiness',
    answer: readinessAnswer,
    summary: 'Ready when Postgres and Temporal both answer (503 otherwise, with each check)',
    tag: 'health',
    public: true,
    handle: (_call, deps) => readiness(deps),
  },
  {
    method: 'GET',
    path: '/metrics',
    answer: metricsAnswer,
    answerType: 'text/plain',
    summary: "The API's Prometheus metrics (with WEFT_METRICS_TOKEN, only to authorization: Bearer <token>)",
    tag: 'health',
    public: true,
    async handle(call, deps): Promise<ShannonAnswer> {
      if (!deps.metrics) return { status: 404, body: { error: 'this API serves no metrics', code: 'NOT_FOUND', status: 'STATUS_CODE_ERROR' } };
      const authorization = typeof call.headers.authorization === 'string' ? call.headers.authorization : undefined;
      if (!metricsAuthorized(deps.metrics.token, authorization)) {
        return {
          status: 401,
          headers: { 'www-authenticate': 'Bearer' },
          body: { error: 'send authorization: Bearer <WEFT_METRICS_TOKEN>', code: 'UNAUTHENTICATED', status: 'STATUS_CODE_ERROR' },
        };
      }
      return { headers: { 'content-type': deps.metrics.registry.contentType }, body: await deps.metrics.registry.metrics() };
    },
  },
];
