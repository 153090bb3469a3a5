import { z } from 'zod';
import { shannonErrors } from '../http/http-errors';
import type { HttpRoute } from '../http/http-route';

/** The OpenAPI document, served as built at start. */
export const openApiRoute: HttpRoute<Record<string, unknown>> = {
  method: 'GET',
  path: '/openapi.json',
  summary: 'This document: every route, with its request and answer schemas',
  tag: 'meta',
  operationId: 'OpenApiDocument',
  auth: 'public',
  errors: shannonErrors,
  answer: { description: 'OpenAPI 3.1', schema: z.looseObject({ openapi: z.string() }) },
  handle: (_call, _reply, document) => document,
};
