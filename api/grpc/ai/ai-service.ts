import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Principal } from '../../../core/auth/api-keys';
import type { ModelGateway } from '../../../core/llm/gateway';
import { defaultAiModelName } from '../../../core/llm/model-aliases';
import { createConversation, withOpenConversation } from '../../../core/sessions/conversations';
import { ConversationClosedError, ConversationError, ConversationExpiredError } from '../../../core/sessions/errors';
import { addMessages, listHistory, type HistoryMessage } from '../../../core/sessions/history';
import { textOf, thinkingOf, type Message } from '../../../core/transcript';
import { weftVersion } from '../../../core/version';
import type { AIServiceHandlers } from '../../../protos/generated/ai/AIService';
import type { Authenticator } from '../../tasks/auth';
import { toServiceError } from '../grpc-errors';
import { invalid } from '../../tasks/task-errors';
import { actingUser } from '../../tasks/acting-user';
import { authorized } from '../unary';
import { log } from '../../../core/telemetry/logger';

// Seed 002's AIService. As its proto intends, failures come back in the `error` field with an OK
// status; only authentication and rate limits are gRPC errors, since they happen before the call.

export interface AiDeps {
  pool: Pool;
  auth: Authenticator;
  gateway: ModelGateway;
  maxQueryBytes: number;
  sessions: { maxHistory: number };
}

const defaultTtlSeconds = 3600;
const maxTtlSeconds = 365 * 24 * 3600;

function systemPrompt(botUsername: string): string | undefined {
  return botUsername ? `You are ${botUsername}, an assistant people address as @${botUsername}.` : undefined;
}

/** The question without the bot's @mention, which is how chat users address it. */
function questionOf(text: string, botUsername: string, maxBytes: number): string {
  const question = botUsername ? text.replaceAll(`@${botUsername}`, '').trim() : text.trim();
  if (!question) throw invalid('text is required');
  const bytes = Buffer.byteLength(question, 'utf8');
  if (bytes > maxBytes) throw invalid(`text is ${bytes} bytes; the limit is ${maxBytes}`);
  return question;
}

/** What went wrong, in the words the gRPC services use; unexpected errors are logged there, as they are bugs. */
function describe(err: unknown): string {
  return toServiceError(err, (line) => log().error(`ai.AIService ${line}`)).details ?? 'internal error';
}

const elapsedMs = (startedAt: number) => performance.now() - startedAt;

function toTranscript(history: readonly HistoryMessage[]): { system: string[]; messages: Message[] } {
  const system = history.filter((m) => m.role === 'system').map((m) => m.content);
  const messages = history
    .filter((m) => m.role !== 'system')
    .map((m): Message => ({ role: m.role as 'user' | 'assistant', parts: [{ kind: 'text', text: m.content }] }));
  return { system, messages };
}

/** One answer from the model (an alias such as venice-uncensored resolves in the gateway). */
async function ask(deps: AiDeps, model: string, system: string | undefined, messages: Message[], enableReasoning: boolean) {
  const completion = await deps.gateway.complete({ model, messages, ...(system ? { system } : {}) });
  return {
    content: textOf(completion.message),
    reasoning_content: enableReasoning ? thinkingOf(completion.message) : '',
    tokens: completion.usage.totalTokens,
  };
}

/** A question in a session: answered with its history, and both turns added to it. */
async function askInSession(deps: AiDeps, sessionId: string, text: string, enableReasoning: boolean, principal: Principal) {
  const now = new Date();
  const { conversation, history } = await withOpenConversation(deps.pool, principal.tenantId, sessionId, now, async (tx, conversation) => ({
    conversation,
    history: await listHistory(tx, principal.tenantId, sessionId),
  }));
  const question = questionOf(text, conversation.botUsername, deps.maxQueryBytes);
  const transcript = toTranscript(history);
  const system = [systemPrompt(conversation.botUsername), ...transcript.system].filter(Boolean).join('\n\n');
  const answer = await ask(
    deps,
    conversation.model,
    system,
    [...transcript.messages, { role: 'user', parts: [{ kind: 'text', text: question }] }],
    enableReasoning,
  );
  const message = (role: 'user' | 'assistant', content: string, tokensUsed: number): HistoryMessage => ({
    id: randomUUID(),
    role,
    content,
    tokensUsed,
    metadata: {},
    createdAt: new Date(),
  });
  await addMessages(deps.pool, principal.tenantId, sessionId, [message('user', question, 0), message('assistant', answer.content, answer.tokens)], new Date());
  return answer;
}

export function createAiService(deps: AiDeps): AIServiceHandlers {
  return {
    GenerateAnswer: authorized(deps.auth, async (request) => {
      const startedAt = performance.now();
      try {
        const question = questionOf(request.text, request.bot_username, deps.maxQueryBytes);
        const answer = await ask(
          deps,
          request.model_name || defaultAiModelName,
          systemPrompt(request.bot_username),
          [{ role: 'user', parts: [{ kind: 'text', text: question }] }],
          request.enable_reasoning,
        );
        return { content: answer.content, error: '', duration_ms: elapsedMs(startedAt), reasoning_content: answer.reasoning_content };
      } catch (err) {
        return { content: '', error: describe(err), duration_ms: elapsedMs(startedAt), reasoning_content: '' };
      }
    }),

    HealthCheck: (_call, callback) => callback(null, { serving: true, version: weftVersion }),

    CreateSession: authorized(deps.auth, async (request, principal) => {
      const ttl = Number(request.ttl_seconds);
      if (!Number.isInteger(ttl) || ttl < 0 || ttl > maxTtlSeconds) {
        return { session_id: '', status: '', error: `ttl_seconds must be between 0 (the default, ${defaultTtlSeconds}) and ${maxTtlSeconds}` };
      }
      try {
        const conversation = await createConversation(
          deps.pool,
          {
            sessionId: randomUUID(),
            tenantId: principal.tenantId,
            userId: actingUser(principal, request.user_id, 'user_id').userId,
            context: {},
            maxHistory: deps.sessions.maxHistory,
            ttlSeconds: ttl || defaultTtlSeconds,
            model: request.model_name || defaultAiModelName,
            botUsername: request.bot_username,
          },
          new Date(),
        );
        return { session_id: conversation.sessionId, status: conversation.status, error: '' };
      } catch (err) {
        return { session_id: '', status: '', error: describe(err) };
      }
    }),

    AskInSession: authorized(deps.auth, async (request, principal) => {
      const startedAt = performance.now();
      const base = { session_id: request.session_id, content: '', reasoning_content: '' };
      if (!request.session_id) return { ...base, status: '', error: 'session_id is required', duration_ms: 0 };
      try {
        const answer = await askInSession(deps, request.session_id, request.text, request.enable_reasoning, principal);
        return {
          ...base,
          status: 'active',
          content: answer.content,
          reasoning_content: answer.reasoning_content,
          error: '',
          duration_ms: elapsedMs(startedAt),
        };
      } catch (err) {
        const status =
          err instanceof ConversationExpiredError
            ? 'expired'
            : err instanceof ConversationClosedError
              ? 'closed'
              : err instanceof ConversationError
                ? ''
                : 'active';
        return { ...base, status, error: describe(err), duration_ms: elapsedMs(startedAt) };
      }
    }),
  };
}
