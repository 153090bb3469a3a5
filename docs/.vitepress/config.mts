import { defineConfig, type DefaultTheme } from 'vitepress';

// The docs site: plain Markdown under docs/, built offline by `make docs` (a dead link fails the build, VitePress's default).

const sidebar: DefaultTheme.SidebarItem[] = [
  {
    text: 'Tutorials',
    items: [
      { text: 'Quickstart', link: '/tutorials/quickstart' },
      { text: 'Using a real model provider', link: '/tutorials/real-model-provider' },
    ],
  },
  {
    text: 'Guides',
    items: [
      { text: 'Coming from Shannon', link: '/guides/coming-from-shannon' },
      { text: 'OpenAI clients', link: '/guides/openai-clients' },
      { text: 'Approvals and steering', link: '/guides/approvals-and-steering' },
      { text: 'Schedules', link: '/guides/schedules' },
      { text: 'Tools', link: '/guides/tools' },
      { text: 'The Python sandbox', link: '/guides/python-sandbox' },
      { text: 'MCP tools', link: '/guides/mcp-tools' },
      { text: 'Models and providers', link: '/guides/models-and-providers' },
      { text: 'Authentication and tenants', link: '/guides/auth-and-tenants' },
      { text: 'Debugging', link: '/guides/debugging' },
      { text: 'Evals', link: '/guides/evals' },
      { text: 'Deploying', link: '/guides/deploying' },
      { text: 'Observability', link: '/guides/observability' },
    ],
  },
  {
    text: 'Concepts',
    items: [
      { text: 'Architecture', link: '/concepts/architecture' },
      { text: 'Durability', link: '/concepts/durability' },
      { text: 'Streaming and resume', link: '/concepts/streaming-and-resume' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'Configuration', link: '/reference/configuration' },
      { text: 'The weft CLI', link: '/reference/cli' },
      { text: 'REST API', link: '/reference/rest' },
      { text: 'gRPC API', link: '/reference/grpc' },
      { text: 'Event types', link: '/reference/events' },
      { text: 'Metrics', link: '/reference/metrics' },
      { text: 'Error codes', link: '/reference/errors' },
    ],
  },
  {
    text: 'Internals',
    items: [
      { text: 'Code layout', link: '/internals/code-layout' },
      { text: 'Replay and versions', link: '/internals/replay-and-versions' },
      { text: 'The task service', link: '/internals/task-service' },
      { text: 'Dependencies and why', link: '/internals/dependencies' },
    ],
  },
];

export default defineConfig({
  title: 'Weft',
  description: 'Durable AI-agent orchestration on Temporal, in TypeScript',
  cleanUrls: true,
  lastUpdated: false,
  // Links to a local stack (http://localhost:8233, the Web UI under `make up`) are the reader's, not the site's: every other dead link fails the build.
  ignoreDeadLinks: 'localhostLinks',
  // The reference pages are generated; examples/ holds code, not pages.
  srcExclude: ['examples/**'],
  themeConfig: {
    nav: [
      { text: 'Quickstart', link: '/tutorials/quickstart' },
      { text: 'Guides', link: '/guides/coming-from-shannon' },
      { text: 'Reference', link: '/reference/configuration' },
    ],
    sidebar,
    search: { provider: 'local' },
    outline: [2, 3],
  },
});
