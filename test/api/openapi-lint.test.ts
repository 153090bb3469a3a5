import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from '../../api/rest/openapi';

// The document /openapi.json serves, linted by Redocly's CLI (the pinned devDependency, offline) with
// its recommended rules: a lint error (an unsafe or repeated operationId, a path parameter not
// declared, a broken $ref, an invalid schema) fails here.

const redocly = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'redocly');

it("passes Redocly's recommended lint", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'weft-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(openApiDocument()));
    const linted = await promisify(execFile)(redocly, ['lint', file, '--format=summary'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect({ code: 'code' in linted ? linted.code : 0, errors: `${linted.stdout}${linted.stderr}`.match(/^error .*$/gm) ?? [] }).toEqual({
      code: 0,
      errors: [],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
