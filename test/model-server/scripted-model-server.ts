import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomUUID } from 'node:crypto';

// An OpenAI-compatible model server whose answers tests script per scenario. It speaks the real
// HTTP protocol (chat completions with tool calls, SSE streaming, embeddings, models) so Weft's
// LLM code runs unchanged through the official `openai` client.

export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ScriptedReply {
  content?: string;
  /** Sent as `reasoning_content` (DeepSeek, vLLM, Qwen) or, with `reasoningAs`, as `reasoning` (Ollama, OpenRouter); streamed before the content. */
  reasoning?: string;
  reasoningAs?: 'reasoning_content' | 'reasoning';
  toolCalls?: ScriptedToolCall[];
  /** `cached_tokens` is reported as OpenAI does, under prompt_tokens_details. */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  /** Report no usage at all, as many OpenAI-compatible servers do (none in the answer, no usage chunk when streaming). */
  omitUsage?: boolean;
  finishReason?: string;
  /** Answer with this HTTP error status instead (e.g. 500, 429). */
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface RecordedRequest {
  path: string;
  /** performance.now() when the request's headers arrived, for latency measurements in the same process. */
  arrivedAt: number;
  /** performance.now() once the whole answer was written: with arrivedAt, the time the server took. */
  answeredAt?: number;
  /** performance.now() once its connection closed, answered or not (a caller that died leaves it unanswered). */
  closedAt?: number;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** The caller's TCP port: which process made the call (chaos strikes the worker whose call is in flight). */
  callerPort?: number;
}

/** A reply, or how to make one from the request's last user text. */
export type ReplyScript = ScriptedReply | ((lastUserText: string) => ScriptedReply);

type Matcher = string | RegExp | ((lastUserText: string, body: Record<string, unknown>) => boolean);

interface Rule {
  matches: (lastUserText: string, body: Record<string, unknown>) => boolean;
  replies: ReplyScript[];
  served: number;
}

export const DEMO_MODEL = 'weft-demo-scripted (not a real LLM)';

const estimateTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages as Array<{ role: string; content: unknown }> | undefined) ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return JSON.stringify(last.content);
}

function toMatcher(matcher: Matcher): Rule['matches'] {
  if (typeof matcher === 'string') return (text) => text.includes(matcher);
  if (matcher instanceof RegExp) return (text) => matcher.test(text);
  return matcher;
}

/** A deterministic unit-ish vector for a text, so equal texts embed equally. */
function embed(text: string, dimensions: number): number[] {
  const vector: number[] = [];
  let seed = createHash('sha256').update(text).digest();
  while (vector.length < dimensions) {
    for (let i = 0; i + 1 < seed.length && vector.length < dimensions; i += 2) {
      vector.push((seed.readUInt16BE(i) / 65535) * 2 - 1);
    }
    seed = createHash('sha256').update(seed).digest();
  }
  return vector;
}

/**
 * Stream shapes providers differ in (OpenAI's own is the default: a first chunk with the role and
 * empty content, the finish reason in a chunk of its own, the usage in a last chunk with no choices).
 */
export interface StreamQuirks {
  /** The first chunk carries only the role (no content key), as vLLM and LM Studio send it. */
  roleOnlyFirstChunk?: boolean;
  /** Every chunk carries the usage so far and no usage chunk comes last (continuous usage stats). */
  usageOnEveryChunk?: boolean;
}

/** How fast answers come, as a real model's would: the wait before the first token, then tokens a second. */
export interface ModelPace {
  firstTokenMs: number;
  tokensPerSecond: number;
}

const pauseFor = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private rules: Rule[] = [];
  private server?: Server;

  /** Without a pace (the tests' default), answers come at once. */
  constructor(private readonly options: { demo?: boolean; embeddingDimensions?: number; pace?: ModelPace; quirks?: StreamQuirks } = {}) {}

  /** How long `tokens` of an answer take to generate at the server's pace. */
  private generationMs(tokens: number): number {
    const pace = this.options.pace;
    return pace && pace.tokensPerSecond > 0 ? (tokens / pace.tokensPerSecond) * 1000 : 0;
  }

  /** Requests whose last user message matches get these replies in order; the last one repeats. */
  on(matcher: Matcher, ...replies: ReplyScript[]): this {
    if (replies.length === 0) throw new Error('a scripted rule needs at least one reply');
    this.rules.push({ matches: toMatcher(matcher), replies, served: 0 });
    return this;
  }

  /** Chat completions received whose connection is still open: model calls in flight. */
  inFlight(): RecordedRequest[] {
    return this.requests.filter((request) => request.path === '/v1/chat/completions' && request.closedAt === undefined);
  }

  reset(): void {
    this.rules = [];
    this.requests.length = 0;
  }

  get baseURL(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('scripted model server is not listening');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(port = 0, host = '127.0.0.1'): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
        else res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private nextReply(body: Record<string, unknown>): ScriptedReply {
    const text = lastUserText(body);
    const rule = this.rules.find((r) => r.matches(text, body));
    if (rule) {
      const reply = rule.replies[Math.min(rule.served, rule.replies.length - 1)]!;
      rule.served += 1;
      return typeof reply === 'function' ? reply(text) : reply;
    }
    if (this.options.demo) {
      return {
        content:
          `[demo model: scripted, not a real LLM] You asked: ${text}\n\n` +
          "A real model would answer here. This scripted demo streams its reply at a model's pace " +
          '(WEFT_DEMO_MODEL_TOKENS_PER_SECOND), so a task runs long enough to watch, pause, resume or cancel. ' +
          'While it streams, `npm run weft -- watch <task>` shows the text arriving, and the Temporal Web UI ' +
          "shows the model step running as an activity of the task's workflow. Pausing the task lets this " +
          'step finish and holds the next one; cancelling it ends the step and records why. ' +
          'Every step, tool call and decision is recorded in Postgres, so a replay of the task shows the same ' +
          'history. Set OPENAI_API_KEY or WEFT_LLM_BASE_URL to use a real model instead.',
      };
    }
    return { status: 404, content: `no scripted reply matches: ${text.slice(0, 200)}` };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = performance.now();
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: DEMO_MODEL, object: 'model', created: 0, owned_by: 'weft-tests' }] });
      return;
    }
    if (req.method !== 'POST') return sendJson(res, 405, { error: { message: 'method not allowed' } });
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const recorded: RecordedRequest = { path, arrivedAt, body, headers: req.headers, ...(req.socket.remotePort ? { callerPort: req.socket.remotePort } : {}) };
    this.requests.push(recorded);
    res.once('finish', () => (recorded.answeredAt = performance.now()));
    res.once('close', () => (recorded.closedAt = performance.now()));
    if (path === '/v1/chat/completions') return this.chat(body, res);
    if (path === '/v1/embeddings') return this.embeddings(body, res);
    sendJson(res, 404, { error: { message: `unknown path ${path}` } });
  }

  private async chat(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const reply = this.nextReply(body);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.status && reply.status >= 400) {
      const type = reply.status === 429 ? 'rate_limit_error' : 'server_error';
      sendJson(res, reply.status, { error: { message: reply.content ?? 'scripted failure', type } }, reply.headers);
      return;
    }
    const model = String(body.model ?? DEMO_MODEL);
    const content = reply.content ?? null;
    const promptText = JSON.stringify(body.messages ?? []);
    const { cached_tokens: cachedTokens, ...usage } = reply.usage ?? {
      prompt_tokens: estimateTokens(promptText),
      completion_tokens: estimateTokens(content ?? JSON.stringify(reply.toolCalls ?? [])),
    };
    const fullUsage = {
      ...usage,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      ...(cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {}),
    };
    const finishReason = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
    const toolCalls = reply.toolCalls?.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    await pauseFor(this.options.pace?.firstTokenMs ?? 0);
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      const quirks = this.options.quirks ?? {};
      let streamed = 0;
      const usageSoFar = () => ({ prompt_tokens: usage.prompt_tokens, completion_tokens: streamed, total_tokens: usage.prompt_tokens + streamed });
      const chunk = (delta: object, finish: string | null) => {
        streamed = Math.min(usage.completion_tokens, streamed + 1);
        const extra = quirks.usageOnEveryChunk ? { usage: finish ? fullUsage : usageSoFar() } : {};
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
        );
      };
      chunk(quirks.roleOnlyFirstChunk ? { role: 'assistant' } : { role: 'assistant', content: '' }, null);
      for (const piece of (reply.reasoning ?? '').match(/.{1,8}/gs) ?? []) chunk({ [reply.reasoningAs ?? 'reasoning_content']: piece }, null);
      for (const piece of (content ?? '').match(/.{1,8}/gs) ?? []) {
        await pauseFor(this.generationMs(estimateTokens(piece)));
        chunk({ content: piece }, null);
      }
      toolCalls?.forEach((call, index) => {
        chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null);
        for (const piece of call.function.arguments.match(/.{1,8}/gs) ?? []) {
          chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null);
        }
      });
      chunk({}, finishReason);
      const options = body.stream_options as { include_usage?: boolean } | undefined;
      if (options?.include_usage && !reply.omitUsage && !quirks.usageOnEveryChunk) {
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: fullUsage })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    await pauseFor(this.generationMs(usage.completion_tokens));
    sendJson(
      res,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              ...(reply.reasoning ? { [reply.reasoningAs ?? 'reasoning_content']: reply.reasoning } : {}),
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        ...(reply.omitUsage ? {} : { usage: fullUsage }),
      },
      reply.headers,
    );
  }

  private embeddings(body: Record<string, unknown>, res: ServerResponse): void {
    const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')];
    const dimensions = Number(body.dimensions ?? this.options.embeddingDimensions ?? 16);
    const tokens = inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
    sendJson(res, 200, {
      object: 'list',
      model: String(body.model ?? 'weft-demo-embedding'),
      data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: embed(text, dimensions) })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
