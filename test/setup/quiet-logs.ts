import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { configureLogger } from '../../core/telemetry/logger';

// Tests log only warnings and errors (the SDK's native core only errors), so failures stand out:
// the in-process API and worker would otherwise write a JSON line per request and per task.
Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
});
configureLogger('weft-test', 'warn');
