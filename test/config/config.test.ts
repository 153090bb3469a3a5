import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config';

// Every setting is read and checked once, at start: a mistake stops the process with its name.

it('refuses a misspelt Weft setting instead of ignoring it', () => {
  expect(() => loadConfig({ WEFT_SANDBOX_MEMRY_MB: '256' })).toThrow('invalid configuration: WEFT_SANDBOX_MEMRY_MB: not a Weft setting');
  // A test's own variables are not settings, and other programs' variables are none of Weft's business.
  expect(() => loadConfig({ WEFT_TEST_SECRET: 'x', HOME: '/root' })).not.toThrow();
});

it('reads per-tool rate limits and the MCP default into the configuration', () => {
  const config = loadConfig({ PYTHON_EXECUTOR_RATE_LIMIT: '12', MCP_RATE_LIMIT_DEFAULT: '30' });
  expect(config.toolRateLimits).toEqual({ PYTHON_EXECUTOR_RATE_LIMIT: 12 });
  expect(config.mcpRateLimitDefault).toBe(30);
  expect(() => loadConfig({ MCP_RATE_LIMIT_DEFAULT: 'many' })).toThrow('MCP_RATE_LIMIT_DEFAULT');
  expect(() => loadConfig({ CALCULATOR_RATE_LIMIT: '-1' })).toThrow(
    'CALCULATOR_RATE_LIMIT: a tool\'s rate limit must be a whole number of calls per minute, got "-1"',
  );
});

it('reads secrets from the captured environment or from the file <NAME>_FILE names', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'weft-secret-')), 'token');
  writeFileSync(file, 'from-file\n');
  const config = loadConfig({ PETS_TOKEN: 'from-env', OTHER_TOKEN_FILE: file, OPENAI_API_KEY: 'sk-provider' });
  expect(config.secrets('PETS_TOKEN')).toBe('from-env');
  expect(config.secrets('OTHER_TOKEN')).toBe('from-file');
  expect(config.secrets('MISSING')).toBeUndefined();
  expect(config.catalog.providers[0]!.apiKey).toBe('sk-provider');
});

it('listens on loopback only unless a deployment says otherwise', () => {
  expect(loadConfig({}).listen.host).toBe('127.0.0.1');
  expect(loadConfig({ WEFT_GRPC_HOST: '0.0.0.0' }).listen.host).toBe('0.0.0.0');
});
