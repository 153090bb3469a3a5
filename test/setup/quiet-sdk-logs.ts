import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';

// Workers in tests log only warnings and errors (the native core only errors), so failures stand out.
Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
});
