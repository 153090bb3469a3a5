import type { ScriptedModelServer, ScriptedReply } from './scripted-model-server';
import { memoryInstruction } from '../../workflows/memory-note';

// What the demo model (`make up` without a model provider) answers, so a newcomer sees the whole
// product run: a research-style question becomes a COMPLEX plan of three agents, two of them in
// parallel, calling the calculator and the Python sandbox; the plan writes a file (a dangerous tool),
// so it waits for a person's approval; a synthesis step combines the results. Every answer says it
// is scripted.

const label = '[demo model: scripted, not a real LLM]';
const researchStyle = /\b(research|compare|analy[sz]e|investigate|report|survey|evaluate|study|assess)\b/i;

const verdict = (mode: 'STANDARD' | 'COMPLEX', reasoning: string): ScriptedReply => ({
  content: JSON.stringify({
    recommended_mode: mode,
    complexity_score: mode === 'COMPLEX' ? 0.8 : 0.3,
    required_capabilities: [],
    estimated_agents: mode === 'COMPLEX' ? 3 : 1,
    estimated_tokens: 2000,
    estimated_cost_usd: 0,
    reasoning: `${label} ${reasoning}`,
  }),
});

export const demoPlan = {
  agents: [
    {
      id: 'researcher',
      description: 'Demo researcher: gather the key figures for the task, checking the arithmetic with the calculator.',
      tools: ['calculator'],
      tier: 'SMALL',
    },
    { id: 'analyst', description: 'Demo analyst: compute a summary statistic with a short Python program.', tools: ['python_executor'], tier: 'SMALL' },
    {
      id: 'writer',
      description: 'Demo writer: write the findings to report.md in the workspace.',
      dependencies: ['researcher', 'analyst'],
      tools: ['file_write'],
      tier: 'MEDIUM',
    },
  ],
};

/** One agent's two steps: a tool call, then (with the tool's result as the last message) its answer. */
interface AgentScript {
  marker: string;
  call: { name: string; arguments: Record<string, unknown> };
  answer: string;
}

const agentScripts: AgentScript[] = [
  {
    marker: 'Demo researcher:',
    call: { name: 'calculator', arguments: { expression: '24 * 365' } },
    answer: 'There are 8760 hours in a year (checked with the calculator).',
  },
  {
    marker: 'Demo analyst:',
    call: { name: 'python_executor', arguments: { code: 'import statistics\nprint(statistics.mean([3, 5, 8, 13]))' } },
    answer: 'The mean of 3, 5, 8 and 13 is 7.25 (computed in the Python sandbox).',
  },
  {
    marker: 'Demo writer:',
    call: { name: 'file_write', arguments: { path: 'report.md', content: '# Demo report\n\nScripted findings of the demo agents.\n' } },
    answer: 'The report is written to report.md.',
  },
];

type Messages = Array<{ role: string }>;
const lastIsToolResult = (body: Record<string, unknown>) => ((body.messages as Messages | undefined) ?? []).at(-1)?.role === 'tool';

/** Adds the demo's rules to a scripted server (the tests run the same script). */
export function scriptDemo(server: ScriptedModelServer): void {
  server.on(
    (text) => text.includes('Classify the task below') && researchStyle.test(text.split('Task: ').at(-1) ?? ''),
    verdict('COMPLEX', 'a research-style question: several agents'),
  );
  server.on((text) => text.includes('Classify the task below'), verdict('STANDARD', 'one agent can answer this'));
  server.on((text) => text.includes('Split the task below into agent tasks'), { content: JSON.stringify(demoPlan) });
  for (const agent of agentScripts) {
    server.on((text, body) => text.includes(agent.marker) && lastIsToolResult(body), { content: `${label} ${agent.answer}` });
    server.on((text) => text.includes(agent.marker), {
      toolCalls: [{ id: `demo-${agent.call.name}`, name: agent.call.name, arguments: JSON.stringify(agent.call.arguments) }],
    });
  }
  // Asked to create a Markdown file, the demo agent writes one to the session's workspace (file_write).
  const wantsFile = /\b(create|write|save)\b[\s\S]*\b(markdown|file)\b/i;
  server.on((text, body) => wantsFile.test(text) && lastIsToolResult(body), { content: `${label} I wrote summary.md to the session's workspace.` });
  server.on(wantsFile, (text) => ({
    toolCalls: [
      {
        id: 'demo-file_write',
        name: 'file_write',
        arguments: JSON.stringify({
          path: 'summary.md',
          content: `# ${/titled ['"]([^'"]+)['"]/i.exec(text)?.[1] ?? 'Summary'}\n\n${label} A short summary of: ${text}\n`,
        }),
      },
    ],
  }));
  // Asked what a finished task leaves its user's memory (WEFT_USER_MEMORY=on), it keeps a note.
  server.on(
    (text) => text.startsWith(memoryInstruction),
    (text) => {
      const task = /## Task\n([\s\S]*?)\n\n## Answer/.exec(text)?.[1]?.trim() ?? 'a task';
      const slug =
        task
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')
          .slice(0, 40) || 'task';
      const note = {
        worth_remembering: true,
        title: task.slice(0, 60),
        summary: `${label} What the task "${task.slice(0, 60)}" found.`,
        content: `${label} The user asked: ${task}\n\nThe demo model answered it at length; a real model would keep the facts worth remembering here.`,
        suggested_path: `${slug}.md`,
      };
      return { content: JSON.stringify(note) };
    },
  );
  server.on((text) => text.includes('Combine these results into one final answer'), {
    content: `${label} Final answer: the researcher counted 8760 hours in a year, the analyst computed a mean of 7.25, and the writer saved report.md.`,
  });
}
