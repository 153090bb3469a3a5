import { all, create, type MathNode } from 'mathjs';
import { ToolError, type ToolDefinition } from '../tool';

// Arithmetic through mathjs's parser, never eval. The expression tree is checked against an
// allowlist before evaluation, so no function outside plain math (import, createUnit, evaluate,
// parse, ...) and no assignment can run, and a length cap bounds the work.

const math = create(all!);
const allowedFunctions = new Set(['sqrt', 'abs', 'round', 'floor', 'ceil', 'log', 'log10', 'log2', 'exp', 'sin', 'cos', 'tan', 'min', 'max', 'pow', 'mod']);
const allowedSymbols = new Set(['pi', 'e']);
const allowedNodes = new Set(['ConstantNode', 'OperatorNode', 'ParenthesisNode', 'FunctionNode', 'SymbolNode']);
const maxExpressionLength = 500;

function checkTree(root: MathNode): void {
  root.traverse((node, _path, parent) => {
    if (!allowedNodes.has(node.type)) throw new ToolError('validation', `unsupported syntax: ${node.type.replace('Node', '')}`);
    if (node.type === 'FunctionNode') {
      const name = (node as unknown as { fn: { name: string } }).fn.name;
      if (!allowedFunctions.has(name)) throw new ToolError('validation', `unsupported function: ${name}`);
    }
    if (node.type === 'SymbolNode' && parent?.type !== 'FunctionNode' && !allowedSymbols.has((node as unknown as { name: string }).name)) {
      throw new ToolError('validation', `unknown symbol: ${(node as unknown as { name: string }).name}`);
    }
  });
}

export function calculate(expression: string): number {
  if (expression.length > maxExpressionLength) throw new ToolError('validation', `expression longer than ${maxExpressionLength} characters`);
  let tree: MathNode;
  try {
    tree = math.parse(expression);
  } catch (err) {
    throw new ToolError('validation', `cannot parse expression: ${(err as Error).message}`);
  }
  checkTree(tree);
  const value: unknown = tree.evaluate();
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ToolError('execution', `expression does not evaluate to a finite number`);
  return value;
}

export const calculatorTool: ToolDefinition = {
  name: 'calculator',
  version: '1.0.0',
  description: 'Evaluates an arithmetic expression (+ - * / ^ %, parentheses, sqrt, abs, round, log, exp, sin, cos, tan, min, max, pi, e).',
  category: 'math',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', minLength: 1, description: 'e.g. "(2 + 3) * 4"' } },
    required: ['expression'],
    additionalProperties: false,
  },
  timeoutMs: 1_000,
  dangerous: false,
  sessionAware: false,
  async execute(args) {
    return { value: calculate(String(args.expression)) };
  },
};
