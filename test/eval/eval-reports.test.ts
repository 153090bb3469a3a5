import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { reportJUnit, reportMarkdown, totalsOf, type EvalCaseResult } from '../../core/eval/eval-report';
import { loadEvalSet } from '../../core/eval/eval-set';
import { judgementOf } from '../../cli/eval/judge';

// An eval's reports and inputs: sets read with their problems named, judges' answers read as real
// models write them, JUnit that CI tools parse whatever the answers hold.

const evalCase = (name: string, answer: string, score: number): EvalCaseResult => ({
  name,
  recordedTaskId: `task-${name}`,
  candidateTaskId: `task-eval-x-${name}`,
  status: 'COMPLETED',
  errorMessage: '',
  recorded: { answer: 'a <b> & "c"', tokens: 10, costUsd: 0.01, latencyMs: 1000 },
  candidate: { answer, tokens: 12, costUsd: 0.02, latencyMs: 1500 },
  score: { scorer: 'normalised', score, reason: score === 1 ? 'same' : 'not "a <b>"' },
  diverged: score === 1 ? [] : ['step 1: recorded answers "a"; candidate answers "b | c"'],
});

it('JUnit: a test case per case and one for the gate, every text escaped', () => {
  const cases = [evalCase('one', 'fine', 1), evalCase('two', 'x < y & \u0001', 0)];
  const xml = reportJUnit({ evalId: 'x', cases, totals: totalsOf(cases), failedOn: ['score<0.9 (score 0.5000)'] }, 0.9);
  expect(xml).toContain('<testsuites name="weft eval" tests="3" failures="2">');
  expect(xml).toContain('<failure message="score 0.00 &lt; 0.9 (normalised: not &quot;a &lt;b&gt;&quot;)"/>');
  expect(xml).toContain('candidate: x &lt; y &amp; \n');
  expect(xml).toContain('<testcase classname="weft.eval.x" name="gate" time="0.000"><failure message="failed on score&lt;0.9 (score 0.5000)"/></testcase>');
  expect(xml).not.toContain('\u0001');
});

it('Markdown: totals, then a row per case with pipes escaped', () => {
  const cases = [evalCase('two', 'b | c', 0)];
  const markdown = reportMarkdown({ evalId: 'x', cases, totals: totalsOf(cases), failedOn: [] });
  expect(markdown).toContain('1 cases · mean score **0.000** · 0 not completed · passed');
  expect(markdown).toContain('| tokens | 10 | 12 |');
  expect(markdown).toContain('| two | 0.00 | normalised: not "a <b>" | a <b> & "c" | b \\| c | 10 → 12 |');
});

it("reads a judge's score from JSON in prose, and scores 0 with the reason when there is none", () => {
  expect(judgementOf('Sure: {"score": 0.75, "reason": "mostly"}')).toEqual({ score: 0.75, reason: 'judge: mostly' });
  expect(judgementOf('{"score": 3}')).toEqual({ score: 0, reason: 'the judge gave no score from 0 to 1: {"score":3}' });
  expect(judgementOf('I like it').reason).toMatch(/^the judge gave no score: the answer is not JSON/);
});

it('loads an eval set by name or path, and names what is wrong with a broken one', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'weft-evals-'));
  writeFileSync(path.join(dir, 'good.yaml'), 'name: good\ncases:\n  - query: What is 6*7?\n    expect: { numeric: 42 }\n  - task: task-1\n');
  expect(loadEvalSet('good', dir)).toEqual({
    name: 'good',
    description: '',
    scorer: 'normalised',
    cases: [{ query: 'What is 6*7?', expect: { numeric: 42, tolerance: 0 } }, { task: 'task-1' }],
  });
  writeFileSync(
    path.join(dir, 'bad.yaml'),
    'name: Bad\nscorer: judge\ncases:\n  - name: both\n    task: t\n    query: q\n  - query: q\n    expect: { regex: "(" }\n',
  );
  expect(() => loadEvalSet(path.join(dir, 'bad.yaml'), dir)).toThrow(
    /name: must be 1-64 lowercase.*scorer: Invalid option.*cases\.0: give a case either task.*cases\.1\.expect/,
  );
  expect(() => loadEvalSet('missing', dir)).toThrow(`eval set missing not found (neither a file nor ${path.join(dir, 'missing.yaml')})`);
});
