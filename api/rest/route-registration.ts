import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Principal } from '../../core/auth/api-keys';
import type { Authenticator } from '../tasks/auth';
import { authorizationOf } from '../http/credentials';
import type { HttpRequest, HttpRoute } from '../http/http-route';
import { z } from 'zod';
import { JsonMappingError } from '../../protos/json-mapping';

// The one wrapper of every HTTP route: a query parameter the route does not read refused, the
// caller authenticated as the route says, the handler run, and any failure answered in the route's
// own error body (Shannon's or OpenAI's).

export function registerHttpRoutes<Deps>(app: FastifyInstance, routes: readonly HttpRoute<Deps>[], deps: Deps, auth: Authenticator): void {
  for (const route of routes) {
    const fail = (reply: FastifyReply, err: unknown) => {
      const { httpStatus, body } = route.errors.of(err);
      return reply.code(httpStatus).send(body);
    };
    const handleSocket = route.handleSocket;
    if (handleSocket) {
      app.get<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>(
        route.path,
        {
          websocket: true,
          // A caller without a key is refused in the handshake (401), before the socket opens; the stream counts the call.
          preValidation: async (request, reply) => {
            try {
              await auth.identify(authorizationOf(request.headers));
            } catch (err) {
              return fail(reply, err);
            }
          },
        },
        (socket, request) => handleSocket(socket, request, deps),
      );
      continue;
    }
    const handle = route.handle;
    const readable = route.query && typeof route.query !== 'function' && route.query instanceof z.ZodObject ? Object.keys(route.query.shape) : [];
    app.route<{ Params: Record<string, string>; Querystring: Record<string, unknown> }>({
      method: route.method,
      url: route.path,
      handler: async (request: HttpRequest, reply) => {
        try {
          if (route.refusesOtherQuery) {
            const other = Object.keys(request.query).find((name) => !readable.includes(name));
            if (other !== undefined) throw new JsonMappingError(`unknown query parameter ${other}`);
          }
          const principal = route.auth === 'api_key' ? await auth.authenticate(authorizationOf(request.headers)) : undefined;
          return await handle({ request, principal: principal as Principal }, reply, deps);
        } catch (err) {
          return fail(reply, err);
        }
      },
    });
  }
}
