import type { Queryable } from '../db/transaction';

// The responses of OpenAI's Responses API that Weft has answered: each is a Weft task, and this is
// what the response echoes that the task does not keep (the model name the caller used, its
// instructions, the response it follows, metadata). A response is found by id within its tenant
// only: another tenant's id is as unknown as a missing one.

/** What a response echoes back of its request (OpenAI's field names). */
export interface ResponseRequestEcho {
  instructions: string | null;
  previous_response_id: string | null;
  background: boolean;
  metadata: Record<string, string>;
}

export interface StoredResponse {
  responseId: string;
  tenantId: string;
  userId: string;
  taskId: string;
  workflowId: string;
  sessionId: string;
  /** The model name the caller used. */
  model: string;
  request: ResponseRequestEcho;
  createdAt: Date;
  /** The task's log before this sequence number is earlier responses' (0: the response began the task). */
  afterSeq: number;
}

interface ResponseRow {
  response_id: string;
  tenant_id: string;
  user_id: string;
  task_id: string;
  workflow_id: string;
  session_id: string;
  model: string;
  request: ResponseRequestEcho;
  created_at: Date;
  after_seq: string;
}

/** A response's id names its task, so `weft status`, the Web UI and the store find the run behind it. */
export const responseIdOf = (taskId: string) => `resp_${taskId}`;

/** The id of a response that continues its task with the client's tool outputs, from the log's sequence number `afterSeq`. */
export const continuationIdOf = (taskId: string, afterSeq: number) => `resp_${taskId}.${afterSeq}`;

/** Keeps a response before its task starts; saving it again (an Idempotency-Key's retry) keeps the first. */
export async function saveResponse(db: Queryable, response: StoredResponse): Promise<StoredResponse> {
  const { rows } = await db.query<ResponseRow>(
    `INSERT INTO openai_responses (response_id, tenant_id, user_id, task_id, workflow_id, session_id, model, request, created_at, after_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (response_id) DO UPDATE SET response_id = EXCLUDED.response_id
     RETURNING *`,
    [
      response.responseId,
      response.tenantId,
      response.userId,
      response.taskId,
      response.workflowId,
      response.sessionId,
      response.model,
      JSON.stringify(response.request),
      response.createdAt,
      response.afterSeq,
    ],
  );
  return fromRow(rows[0]!);
}

/** Forgets a response whose task refused what it was to send (the client's tool outputs). */
export async function forgetResponse(db: Queryable, tenantId: string, responseId: string): Promise<void> {
  await db.query('DELETE FROM openai_responses WHERE response_id = $1 AND tenant_id = $2', [responseId, tenantId]);
}

export async function findResponse(db: Queryable, tenantId: string, responseId: string): Promise<StoredResponse | undefined> {
  const { rows } = await db.query<ResponseRow>('SELECT * FROM openai_responses WHERE response_id = $1 AND tenant_id = $2', [responseId, tenantId]);
  return rows[0] && fromRow(rows[0]);
}

function fromRow(row: ResponseRow): StoredResponse {
  return {
    responseId: row.response_id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    taskId: row.task_id,
    workflowId: row.workflow_id,
    sessionId: row.session_id,
    model: row.model,
    request: row.request,
    createdAt: row.created_at,
    afterSeq: Number(row.after_seq),
  };
}
