import { expectationOf, score, type Expectation, type Judge } from '../../core/eval/scorers';

// Each scorer passes the answers it should and fails the ones it should not, saying why.

const noJudge: Judge = () => Promise.reject(new Error('no judge in this test'));
const scoreOf = async (expectation: Expectation, answer: string) => score(expectation, answer, { question: 'q', reference: 'r', judge: noJudge });

it.each<[string, Expectation, string, number, string]>([
  ['exact', { exact: 'Paris' }, 'Paris', 1, 'the same text'],
  ['exact', { exact: 'Paris' }, 'paris', 0, 'not exactly "Paris"'],
  ['normalised', { normalised: 'Paris' }, '  PARIS. ', 1, 'the same text, case and spacing aside'],
  ['normalised', { normalised: 'Paris' }, 'Lyon', 0, 'not "Paris"'],
  ['contains', { contains: 'capital is Paris' }, 'The capital is  PARIS, of course', 1, 'contains "capital is Paris"'],
  ['contains', { contains: 'Paris' }, 'Lyon', 0, 'does not contain "Paris"'],
  ['json', { json: { a: 1, b: [2] } }, 'Here: ```json\n{"b":[2],"a":1}\n```', 1, 'the JSON is equal'],
  ['json', { json: { a: 1 } }, '{"a":2}', 0, 'the JSON differs'],
  ['numeric', { numeric: 42, tolerance: 0.5 }, 'about 42.4 in all', 1, '42.4 is within 0.5 of 42'],
  ['numeric', { numeric: 1234.5 }, 'It is 1,234.5', 1, '1234.5 is within 0 of 1234.5'],
  ['numeric', { numeric: 42, tolerance: 0.5 }, '43', 0, '43 is outside 0.5 of 42'],
  ['numeric', { numeric: 42 }, 'forty-two', 0, 'the answer states no number'],
  ['regex', { regex: '^\\d+ hours$' }, '8760 hours', 1, 'matches /^\\d+ hours$/'],
  ['regex', { regex: '^\\d+ hours$' }, 'many hours', 0, 'does not match /^\\d+ hours$/'],
])('%s %j on %j scores %d', async (scorer, expectation, answer, expected, reason) => {
  expect(await scoreOf(expectation, answer)).toEqual({ scorer, score: expected, reason });
});

it('a judge scores by its rubric, shown the question and the recorded answer', async () => {
  const seen: string[][] = [];
  const judge: Judge = (...args) => {
    seen.push(args);
    return Promise.resolve({ score: 0.5, reason: 'judge: half right' });
  };
  expect(await score({ judge: 'is it polite?' }, 'no', { question: 'ask', reference: 'yes please', judge })).toEqual({
    scorer: 'judge',
    score: 0.5,
    reason: 'judge: half right',
  });
  expect(seen).toEqual([['is it polite?', 'ask', 'no', 'yes please']]);
});

it('refuses an expectation that cannot be scored, naming what is wrong', async () => {
  await expect(scoreOf({ regex: '(' }, 'x')).rejects.toThrow('must be a valid regular expression');
  await expect(scoreOf({ numeric: 1, tolerance: -1 } as Expectation, 'x')).rejects.toThrow('Too small');
});

it('a scorer named on the command line compares with the recorded answer, or with --expect', () => {
  expect(expectationOf('normalised', 'Paris')).toEqual({ normalised: 'Paris' });
  expect(expectationOf('json', 'The result: {"a":1}')).toEqual({ json: { a: 1 } });
  expect(expectationOf('numeric', 'It is 42.', undefined, 0.1)).toEqual({ numeric: 42, tolerance: 0.1 });
  expect(expectationOf('contains', 'Paris', 'Par')).toEqual({ contains: 'Par' });
  expect(() => expectationOf('regex', 'Paris')).toThrow('--scorer regex needs --expect (the pattern)');
  expect(() => expectationOf('judge', 'Paris')).toThrow('--scorer judge needs --expect (the rubric)');
  expect(() => expectationOf('numeric', 'none')).toThrow('--scorer numeric: the recorded answer states no number');
});
