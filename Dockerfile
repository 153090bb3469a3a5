# syntax=docker/dockerfile:1
# One image for every Weft process; the command picks which (infra/container/entrypoint.sh):
#   docker run weft api | worker | migrate | prepare-temporal | demo-model | weft <command>
# Node is the LTS pinned in .node-version.
ARG NODE_VERSION=24.22.3

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The generated gRPC types, and the workflow bundle a worker would otherwise build at each start.
RUN npm run --silent proto:gen \
 && node --import tsx infra/build-workflow-bundle.ts /app/dist/workflow-bundle.js \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
# bubblewrap: the Python sandbox's namespaces (it needs unprivileged user namespaces on the host);
# python3-seccomp: the sandbox's interpreter (Debian's python3, which it brings along) and its
# seccomp filter; tini: signals reach Node, so SIGTERM drains the worker and the API.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3-seccomp tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /var/lib/weft/workspaces && chown -R node:node /var/lib/weft
ENV NODE_ENV=production \
    WEFT_GRPC_HOST=0.0.0.0 \
    WEFT_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js \
    WEFT_WORKSPACE_DIR=/var/lib/weft/workspaces
# The image's files belong to root and are read-only to the processes.
USER node
# 50052 orchestrator/streaming/session/ai, 50051 agent, 8000 llm, 8080 REST/SSE, 9465 API ops, 9464 worker ops.
EXPOSE 50052 50051 8000 8080 9464 9465
ENTRYPOINT ["/usr/bin/tini", "--", "/app/infra/container/entrypoint.sh"]
CMD ["api"]
