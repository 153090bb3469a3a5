#!/usr/bin/env -S npx tsx
// The `weft` command: talk to a running Weft API, and operate its deployment (`npm run weft -- --help`).
import { existsSync, readFileSync } from 'node:fs';
import type { ServiceError } from '@grpc/grpc-js';
import { devApiKeyFile } from '../infra/dev-api-key';
import { weftProgram } from './program';

/** WEFT_API_KEY, or the development key `make up` wrote. */
function apiKey(): string | undefined {
  if (process.env.WEFT_API_KEY) return process.env.WEFT_API_KEY;
  return existsSync(devApiKeyFile) ? readFileSync(devApiKeyFile, 'utf8').trim() : undefined;
}

weftProgram({
  ...(process.env.WEFT_API_ADDRESS ? { apiAddress: process.env.WEFT_API_ADDRESS } : {}),
  apiKey,
  // Run through `npm run weft`, the suggestions say so too.
  selfCommand: process.env.npm_lifecycle_event === 'weft' ? 'npm run weft --' : 'weft',
})
  .parseAsync()
  .catch((err: ServiceError | Error) => {
    const code = 'code' in err && typeof err.code === 'number' ? ` (gRPC status ${err.code})` : '';
    console.error(`weft: ${'details' in err && err.details ? err.details : err.message}${code}`);
    process.exit(1);
  });
