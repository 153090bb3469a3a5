import { z } from 'zod';

// The API's settings (read with the rest in core/config.ts): where it listens and with what TLS, who may call
// and how often, the size of what it accepts, sessions' defaults; and what the `weft` CLI connects with.

export const apiEnvSchema = z.object({
  WEFT_AUTH: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`off` accepts callers without an API key, each as tenant `default` with every role (development only; the API logs a warning).'),
  WEFT_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(600)
    .describe('Calls one API key may make per minute (0: unlimited); beyond it, RESOURCE_EXHAUSTED (HTTP 429).'),
  // Loopback unless a deployment exposes it on purpose (0.0.0.0 in a container).
  WEFT_GRPC_HOST: z
    .string()
    .default('127.0.0.1')
    .describe("The address every API port and the worker's metrics bind; `0.0.0.0` (or an interface's address) exposes them to other hosts."),
  WEFT_TLS_CERT_FILE: z.string().min(1).optional().describe('A PEM certificate: with WEFT_TLS_KEY_FILE, every API port (gRPC and REST) speaks TLS only.'),
  WEFT_TLS_KEY_FILE: z.string().min(1).optional().describe('The PEM private key of WEFT_TLS_CERT_FILE.'),
  WEFT_TLS_CLIENT_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A PEM CA bundle: clients must present a certificate it signed (mTLS). Needs WEFT_TLS_CERT_FILE and WEFT_TLS_KEY_FILE.'),
  WEFT_GRPC_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(50052)
    .describe('The front gRPC port: OrchestratorService, StreamingService, SessionService and ai.AIService.'),
  WEFT_AGENT_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051).describe('The AgentService gRPC port.'),
  WEFT_LLM_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(8000).describe('The LLMService gRPC port.'),
  WEFT_HTTP_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(8080)
    .describe('The REST, SSE and WebSocket gateway (`/api/v1`, the OpenAI routes under `/v1`, OpenAPI at `/openapi.json`).'),
  WEFT_SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600)
    .describe('How long a SessionService session lives when its creator does not say.'),
  WEFT_SESSION_MAX_HISTORY: z.coerce
    .number()
    .int()
    .positive()
    .default(100)
    .describe('How many messages a SessionService session keeps when its creator does not say (the newest are kept).'),
  WEFT_SSE_KEEPALIVE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15_000)
    .describe('How often an idle server-sent-events stream gets a `: keep-alive` comment.'),
  WEFT_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024)
    .describe('The largest gRPC message received or sent, and the largest REST body; larger ones are refused before they are parsed.'),
  WEFT_MAX_QUERY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024)
    .describe('The largest task query accepted, in bytes.'),
  WEFT_SUBMIT_ROUTING_WAIT_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(30_000)
    .describe("How long SubmitTask with `auto_decompose` waits to answer with the task's mode and plan (0: answer at once, mode UNSPECIFIED)."),
  WEFT_TENANT_SUBMITS_PER_MINUTE: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(120)
    .describe('Tasks one tenant may submit per minute, counted across every API process (0: unlimited).'),
  WEFT_TENANT_MAX_RUNNING_TASKS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(50)
    .describe('Tasks one tenant may have running at once (0: unlimited); past it, its submissions are RESOURCE_EXHAUSTED.'),
  // Read by the `weft` CLI and the demo model server (entry points), declared so they are known.
  WEFT_API_ADDRESS: z.string().optional().describe('Where the `weft` CLI connects (host:port of the front gRPC port). Default: `127.0.0.1:50052`.'),
  WEFT_API_KEY: z.string().optional().describe('The API key the `weft` CLI sends. Default: the development key `make up` keeps in `.state/dev-api-key`.'),
});
