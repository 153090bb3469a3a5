// The workflow bundle's entry point: every workflow type the worker registers.
export { taskWorkflow } from './task-workflow';
export { agentWorkflow } from './agent-workflow';
