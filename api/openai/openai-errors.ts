import { status as GrpcStatus } from '@grpc/grpc-js';
import { log } from '../../core/telemetry/logger';
import { JsonMappingError } from '../../protos/json-mapping';
import { toServiceError } from '../grpc/grpc-errors';
import { httpErrorOf } from '../rest/http-mapping';

// Errors as OpenAI's API reports them, so OpenAI clients raise their own typed errors:
// `{"error": {"message", "type", "param", "code"}}` with OpenAI's status codes.

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** A request OpenAI's API would refuse: 400 invalid_request_error, naming the parameter at fault. */
export class OpenAiRequestError extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly httpStatus = 400,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** 400: the request names `param` as what was wrong. */
export const invalid = (message: string, param: string) => new OpenAiRequestError(message, param);

export const modelNotFound = (model: string) =>
  new OpenAiRequestError(
    `The model '${model}' does not exist or you do not have access to it. GET /v1/models lists the models.`,
    'model',
    404,
    'model_not_found',
  );

const typeOfStatus: Record<number, string> = { 401: 'invalid_request_error', 403: 'permission_error', 404: 'invalid_request_error', 429: 'rate_limit_error' };
const codeOfGrpc: Partial<Record<GrpcStatus, string>> = {
  [GrpcStatus.UNAUTHENTICATED]: 'invalid_api_key',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'rate_limit_exceeded',
  [GrpcStatus.PERMISSION_DENIED]: 'insufficient_permissions',
};

export function openAiErrorOf(err: unknown): { httpStatus: number; body: OpenAiErrorBody } {
  if (err instanceof OpenAiRequestError) {
    return { httpStatus: err.httpStatus, body: { error: { message: err.message, type: 'invalid_request_error', param: err.param, code: err.code } } };
  }
  const failure = err instanceof JsonMappingError ? err : toServiceError(err, (line) => log().error(`OpenAI routes ${line}`));
  const { httpStatus, body } = httpErrorOf(failure);
  const grpcCode = (failure as { code?: GrpcStatus }).code;
  const type = httpStatus >= 500 ? 'server_error' : (typeOfStatus[httpStatus] ?? 'invalid_request_error');
  return { httpStatus, body: { error: { message: body.error, type, param: null, code: (grpcCode !== undefined ? codeOfGrpc[grpcCode] : undefined) ?? null } } };
}
