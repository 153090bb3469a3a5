// Calls the REST port as Shannon's Python SDK does: the key in X-API-Key, JSON bodies.

export interface ShannonResponse {
  status: number;
  headers: Headers;
  // The body's shape is what the tests assert, field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

export interface ShannonCaller {
  base: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ShannonResponse>;
  raw(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Polls GET /api/v1/tasks/{id} until the task has ended, and returns what it answered then. */
  waitForTask(taskId: string, timeoutMs?: number): Promise<ShannonResponse['body']>;
}

export function shannonCaller(base: string, apiKey: string): ShannonCaller {
  const raw = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await raw(method, path, body, headers);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as ShannonResponse['body'] };
  };
  return {
    base,
    raw,
    call,
    async waitForTask(taskId, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await call('GET', `/api/v1/tasks/${taskId}`);
        if (!['TASK_STATUS_QUEUED', 'TASK_STATUS_RUNNING'].includes(body.status)) return body;
        if (Date.now() > deadline) throw new Error(`task ${taskId} still ${body.status} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}
