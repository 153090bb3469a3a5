import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workers in tests log only warnings and errors, so failures stand out.
Runtime.install({ logger: new DefaultLogger('WARN') });
