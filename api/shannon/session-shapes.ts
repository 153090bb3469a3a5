import { z } from 'zod';
import { maxTitleLength, retitleSession, sessionProfiles, type SessionProfile } from '../../core/sessions/named-sessions';
import { JsonMappingError } from '../../protos/json-mapping';
import { objectOf, type AdapterContext, type JsonObject, type RouteAdapter } from './route-adapter';

// Shannon's session routes on Weft's SessionService routes: a session's title (PATCH {"title": ...})
// and the fields Shannon's clients read (session_id, title, task counts, spend) added to ListSessions
// and GetSession.

/** Shannon's names for a session's title and what its tasks did. */
function profileFields(profile: SessionProfile | undefined): JsonObject {
  if (!profile) return {};
  return {
    title: profile.title,
    task_count: profile.taskCount,
    successful_tasks: profile.successfulTasks,
    failed_tasks: profile.failedTasks,
    success_rate: profile.taskCount > 0 ? profile.successfulTasks / profile.taskCount : 0,
    tokens_used: profile.totalTokens,
    total_cost_usd: profile.costUsd,
    cost_usd: profile.costUsd,
    average_cost_per_task: profile.taskCount > 0 ? profile.costUsd / profile.taskCount : 0,
    ...(profile.latestTaskQuery !== undefined ? { latest_task_query: profile.latestTaskQuery } : {}),
    ...(profile.latestTaskStatus !== undefined ? { latest_task_status: profile.latestTaskStatus } : {}),
    ...(profile.lastTaskAt ? { last_activity_at: profile.lastTaskAt.toISOString() } : {}),
  };
}

async function profilesOf(context: AdapterContext, sessionIds: string[]) {
  const principal = await context.auth.identify(context.authorization);
  return sessionProfiles(context.pool, principal.tenantId, sessionIds);
}

const profileSchema = {
  title: z.string().optional(),
  task_count: z.number().optional(),
  successful_tasks: z.number().optional(),
  failed_tasks: z.number().optional(),
  success_rate: z.number().optional(),
  tokens_used: z.number().optional(),
  total_cost_usd: z.number().optional(),
  cost_usd: z.number().optional(),
  average_cost_per_task: z.number().optional(),
  latest_task_query: z.string().optional(),
  latest_task_status: z.string().optional(),
  last_activity_at: z.string().optional(),
};

export const listSessionsShape: RouteAdapter = {
  schemas: { answer: z.object({ sessions: z.array(z.object({ session_id: z.string(), updated_at: z.string().optional(), ...profileSchema })) }) },
  async respond(response, context) {
    const sessions = (response.sessions as JsonObject[] | undefined) ?? [];
    const profiles = await profilesOf(
      context,
      sessions.map((s) => String(s.id)),
    );
    return {
      body: {
        ...response,
        sessions: sessions.map((s) => ({ ...s, session_id: s.id, updated_at: s.last_active, ...profileFields(profiles.get(String(s.id))) })),
      },
    };
  },
};

export const getSessionShape: RouteAdapter = {
  schemas: {
    answer: z.object({
      session_id: z.string(),
      user_id: z.string().optional(),
      context: z.record(z.string(), z.unknown()),
      created_at: z.string().optional(),
      updated_at: z.string().optional(),
      expires_at: z.string().optional(),
      ...profileSchema,
    }),
  },
  async respond(response, context) {
    const session = objectOf(response.session) ?? {};
    const id = String(session.id ?? '');
    const profiles = await profilesOf(context, [id]);
    return {
      body: {
        ...response,
        session_id: id,
        user_id: session.user_id,
        context: session.context ?? {},
        created_at: session.created_at,
        updated_at: session.last_active,
        expires_at: session.expires_at,
        ...profileFields(profiles.get(id)),
      },
    };
  },
};

function titleOf(body: JsonObject): string | undefined {
  if (body.title === undefined) return undefined;
  if (typeof body.title !== 'string' || body.title.trim() === '') throw new JsonMappingError('title must be a non-empty string');
  const title = body.title.trim();
  if ([...title].length > maxTitleLength) throw new JsonMappingError(`title is longer than ${maxTitleLength} characters`);
  if (/\p{Cc}/u.test(title)) throw new JsonMappingError('title must not contain control characters');
  return title;
}

/** PATCH with Shannon's {"title": ...}: the title is set once UpdateSession found the session open. */
export const updateSessionShape: RouteAdapter = {
  schemas: {
    body: z.object({ title: z.string().min(1).max(maxTitleLength).describe("Shannon's session title, without control characters").optional() }),
    answer: z.object({ title: z.string().optional() }),
  },
  request(parts) {
    const body = objectOf(parts.body);
    if (!body || !('title' in body)) return parts;
    titleOf(body);
    const { title: _title, ...rest } = body;
    return { ...parts, body: rest };
  },
  async respond(response, context, sent) {
    const title = titleOf(objectOf(sent.body) ?? {});
    if (title === undefined) return { body: response };
    const principal = await context.auth.identify(context.authorization);
    await retitleSession(context.pool, principal.tenantId, sent.params.session_id!, title);
    return { body: { ...response, title } };
  },
};
