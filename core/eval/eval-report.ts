import type { GateFigures } from './gate';
import type { Score } from './scorers';

// What an eval found: per case, the candidate's answer beside the recorded one with its score,
// tokens, cost and latency beside the recorded ones, and the steps that went another way; in
// total, the figures its gate judges. Rendered for a terminal, as Markdown and as JUnit XML.

export interface RunFigures {
  answer: string;
  tokens: number;
  costUsd: number;
  latencyMs: number;
}

export interface EvalCaseResult {
  name: string;
  recordedTaskId: string;
  candidateTaskId: string;
  /** The candidate task's status (COMPLETED, FAILED, ...). */
  status: string;
  errorMessage: string;
  recorded: RunFigures;
  candidate: RunFigures;
  score: Score;
  diverged: string[];
}

export interface EvalReport {
  evalId: string;
  cases: EvalCaseResult[];
  totals: GateFigures;
  /** The gate's conditions that held (empty: passed, or no gate). */
  failedOn: string[];
}

export function totalsOf(cases: EvalCaseResult[]): GateFigures {
  const sum = (pick: (c: EvalCaseResult) => number) => cases.reduce((total, c) => total + pick(c), 0);
  return {
    score: cases.length === 0 ? 0 : sum((c) => c.score.score) / cases.length,
    failed: cases.filter((c) => c.status !== 'COMPLETED').length,
    candidate: { cost: sum((c) => c.candidate.costUsd), tokens: sum((c) => c.candidate.tokens), latency: sum((c) => c.candidate.latencyMs) },
    recorded: { cost: sum((c) => c.recorded.costUsd), tokens: sum((c) => c.recorded.tokens), latency: sum((c) => c.recorded.latencyMs) },
  };
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const delta = (before: number, after: number, show: (n: number) => string) =>
  `${show(before)} -> ${show(after)}${before > 0 ? ` (${(after / before).toFixed(2)}x)` : ''}`;
const clip = (text: string, max = 100) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A terminal's report: a block per case, then the totals and the gate. */
export function reportLines(report: EvalReport): string[] {
  const { totals } = report;
  return [
    ...report.cases.flatMap((c) => [
      `${c.name}: score ${c.score.score.toFixed(2)} (${c.score.scorer}: ${c.score.reason})${c.status === 'COMPLETED' ? '' : `, ${c.status}: ${c.errorMessage}`}`,
      `  recorded  ${c.recordedTaskId}: ${JSON.stringify(clip(c.recorded.answer))}`,
      `  candidate ${c.candidateTaskId}: ${JSON.stringify(clip(c.candidate.answer))}`,
      `  tokens ${delta(c.recorded.tokens, c.candidate.tokens, String)}, cost ${delta(c.recorded.costUsd, c.candidate.costUsd, usd)}, latency ${delta(c.recorded.latencyMs, c.candidate.latencyMs, (n) => `${Math.round(n)} ms`)}`,
      ...(c.diverged.length > 0 ? c.diverged.map((step) => `  diverged: ${clip(step, 200)}`) : ['  diverged: no step']),
    ]),
    `eval ${report.evalId}: ${report.cases.length} cases, mean score ${totals.score.toFixed(3)}, ${totals.failed} not completed`,
    `  tokens ${delta(totals.recorded.tokens, totals.candidate.tokens, String)}, cost ${delta(totals.recorded.cost, totals.candidate.cost, usd)}, latency ${delta(totals.recorded.latency, totals.candidate.latency, (n) => `${Math.round(n)} ms`)}`,
    report.failedOn.length > 0 ? `FAILED on ${report.failedOn.join('; ')}` : 'passed',
  ];
}

const cell = (text: string) => clip(text, 120).replace(/\|/g, '\\|');

export function reportMarkdown(report: EvalReport): string {
  const { totals } = report;
  return [
    `# Eval ${report.evalId}`,
    '',
    `${report.cases.length} cases · mean score **${totals.score.toFixed(3)}** · ${totals.failed} not completed · ${report.failedOn.length > 0 ? `**failed** on ${report.failedOn.join('; ')}` : 'passed'}`,
    '',
    `| | recorded | candidate |`,
    `|---|---|---|`,
    `| tokens | ${totals.recorded.tokens} | ${totals.candidate.tokens} |`,
    `| cost | ${usd(totals.recorded.cost)} | ${usd(totals.candidate.cost)} |`,
    `| latency | ${Math.round(totals.recorded.latency)} ms | ${Math.round(totals.candidate.latency)} ms |`,
    '',
    '| case | score | scorer | recorded answer | candidate answer | tokens | cost | latency | diverged steps |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.cases.map((c) =>
      [
        '',
        cell(c.name),
        c.score.score.toFixed(2),
        cell(`${c.score.scorer}: ${c.score.reason}`),
        cell(c.recorded.answer),
        cell(c.status === 'COMPLETED' ? c.candidate.answer : `${c.status}: ${c.errorMessage}`),
        `${c.recorded.tokens} → ${c.candidate.tokens}`,
        `${usd(c.recorded.costUsd)} → ${usd(c.candidate.costUsd)}`,
        `${Math.round(c.recorded.latencyMs)} → ${Math.round(c.candidate.latencyMs)} ms`,
        c.diverged.length === 0 ? 'none' : cell(c.diverged.join('; ')),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
  ].join('\n');
}

const xml = (text: string) =>
  text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * JUnit XML: a test case per eval case, failed when its score is under `passScore` or its task
 * did not complete; the gate is a test case of its own, so CI shows why the run failed.
 */
export function reportJUnit(report: EvalReport, passScore: number): string {
  const caseXml = (name: string, seconds: number, failure?: string, out?: string) =>
    `    <testcase classname="weft.eval.${xml(report.evalId)}" name="${xml(name)}" time="${seconds.toFixed(3)}">` +
    (failure ? `<failure message="${xml(failure)}"/>` : '') +
    (out ? `<system-out>${xml(out)}</system-out>` : '') +
    '</testcase>';
  const cases = report.cases.map((c) => {
    const failure =
      c.status !== 'COMPLETED'
        ? `${c.status}: ${c.errorMessage}`
        : c.score.score < passScore
          ? `score ${c.score.score.toFixed(2)} < ${passScore} (${c.score.scorer}: ${c.score.reason})`
          : undefined;
    return caseXml(
      c.name,
      c.candidate.latencyMs / 1000,
      failure,
      [`candidate: ${c.candidate.answer}`, `recorded: ${c.recorded.answer}`, ...c.diverged].join('\n'),
    );
  });
  const gate = caseXml('gate', 0, report.failedOn.length > 0 ? `failed on ${report.failedOn.join('; ')}` : undefined);
  const failures = report.cases.filter((c) => c.status !== 'COMPLETED' || c.score.score < passScore).length + (report.failedOn.length > 0 ? 1 : 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="weft eval" tests="${cases.length + 1}" failures="${failures}">`,
    `  <testsuite name="${xml(report.evalId)}" tests="${cases.length + 1}" failures="${failures}">`,
    ...cases,
    gate,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
