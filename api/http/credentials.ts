// What every HTTP door reads of the caller from its headers: its credentials, as the authenticator
// takes them, and its idempotency key.

type Headers = Record<string, string | string[] | undefined>;

const single = (value: string | string[] | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);

/** `authorization`, or Shannon's `X-API-Key` as a bearer key; Authorization wins when both are there. */
export function authorizationOf(headers: Headers): string | undefined {
  const apiKey = single(headers['x-api-key']);
  return single(headers.authorization) ?? (apiKey ? `Bearer ${apiKey}` : undefined);
}

/** The `Idempotency-Key` that names a submitted task, when given. */
export const idempotencyKeyOf = (headers: Headers): string | undefined => single(headers['idempotency-key']);
