import { z } from 'zod';

// The tools' settings (read with the rest in core/config.ts): sources registered at start, who may reach
// what and with which secrets, and how outbound calls are timed, retried, broken and run in parallel.

/** What every secret a runtime tool source names must start with, unless WEFT_TOOL_SECRET_PREFIX says otherwise. */
export const defaultToolSecretPrefix = 'TOOL_SECRET_';

export const toolEnvSchema = z.object({
  WEFT_MCP_SERVERS: z.string().optional().describe('MCP servers whose tools are registered at start: a JSON array of `{name, url, bearer_token_env}`.'),
  WEFT_TOOL_POLICY: z
    .string()
    .optional()
    .describe(
      'A YAML file saying who may use which tool (`{default, rules: [{tools, effect, users, roles}]}`, first match wins). Unset: every tool for everyone.',
    ),
  WEFT_OPENAPI_SOURCES: z
    .string()
    .optional()
    .describe('OpenAPI specs whose operations are registered as tools at start: a JSON array of `{name, spec_url | spec_file, auth, vendor, per_user}`.'),
  OPENAPI_MAX_SPEC_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024)
    .describe('The largest OpenAPI spec loaded, in bytes.'),
  WEFT_HTTP_FETCH_ALLOWED_DOMAINS: z
    .string()
    .default('')
    .describe('Hosts `http_fetch` may reach, comma-separated (`*.example.com`; `*` for any public host). Empty: none.'),
  MCP_ALLOWED_DOMAINS: z.string().default('').describe('Hosts MCP servers may be on, comma-separated (`*.example.com`; `*` for any public host).'),
  OPENAPI_ALLOWED_DOMAINS: z.string().default('').describe('Hosts OpenAPI tools may call, comma-separated (`*.example.com`; `*` for any public host).'),
  WEFT_TOOL_SPEC_DIR: z
    .string()
    .optional()
    .describe("The folder a runtime tool source's `spec_file` must be in. Unset: runtime sources may not name a `spec_file` (use `spec_url`)."),
  WEFT_TOOL_SECRET_PREFIX: z
    .string()
    .min(1)
    .default(defaultToolSecretPrefix)
    .describe("The prefix every secret a runtime tool source names must have, so no source can ask for, say, the model provider's key."),
  MCP_CB_FAILURES: z.coerce.number().int().positive().default(5).describe('Failures of one base URL (MCP or HTTP tools) that open its circuit breaker.'),
  MCP_CB_RECOVERY_SECONDS: z.coerce.number().positive().default(60).describe('How long an open tool circuit stays open before one probe call is let through.'),
  WEFT_TOOL_HTTP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe('Timeout of one outbound tool HTTP request (OpenAPI, MCP, http_fetch).'),
  WEFT_TOOL_HTTP_ATTEMPTS: z.coerce
    .number()
    .int()
    .positive()
    .default(3)
    .describe('Attempts of an outbound tool request that failed on the network (timeouts only for idempotent requests), with backoff and jitter.'),
  WEFT_TOOL_PARALLELISM: z.coerce.number().int().positive().optional().describe('Tool calls of one model step run at once (default 4).'),
  TOOL_PARALLELISM: z.coerce.number().int().positive().optional().describe("Shannon's name for WEFT_TOOL_PARALLELISM (Weft's wins when both are set)."),
  MCP_RATE_LIMIT_DEFAULT: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(60)
    .describe('Calls per minute per tenant of an MCP tool that has no `<TOOL>_RATE_LIMIT` of its own.'),
});
