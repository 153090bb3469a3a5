// Writes docs/reference/ from the code: configuration (the settings schema), the CLI (commander's
// tree), gRPC (the protos), event types (the event catalog), metrics (their definitions), error codes
// (the task service's error vocabulary and each door's table) and REST (the OpenAPI document the API
// serves). `make docs-references` runs it; `make test` fails when the result differs from what is
// checked in, so a setting, command, RPC, event type, error kind or route cannot change without its
// reference.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configurationReference } from './config-reference';
import { cliReference } from './cli-reference';
import { grpcReference } from './grpc-reference';
import { eventReference } from './event-reference';
import { restReference } from './rest-reference';
import { metricsReference } from './metrics-reference';
import { errorReference } from './error-reference';
import { openApiDocument } from '../../api/rest/openapi';

const referenceDir = path.resolve(__dirname, '..', '..', 'docs', 'reference');

const pages: Record<string, () => string> = {
  'configuration.md': configurationReference,
  'cli.md': cliReference,
  'grpc.md': grpcReference,
  'events.md': eventReference,
  'metrics.md': metricsReference,
  'errors.md': errorReference,
  'rest.md': () => restReference(openApiDocument() as unknown as Parameters<typeof restReference>[0]),
};

for (const [file, render] of Object.entries(pages)) {
  writeFileSync(path.join(referenceDir, file), render());
  console.log(`docs/reference/${file}`);
}
