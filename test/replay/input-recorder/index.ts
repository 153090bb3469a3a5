// A workflow interceptor for replay: reports every activity the workflow code schedules, with its
// arguments and its run context header, through a sink the test reads. Sinks are the sandbox's
// only way out. It runs after workflows/run-context.ts, so it sees the header that sets.
import { defaultPayloadConverter } from '@temporalio/common';
import { runContextHeader, type RunContext } from '../../../core/tasks/run/run-context';
import {
  proxySinks,
  type ActivityInput,
  type Next,
  type Sinks,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

export interface ScheduledActivitySinks extends Sinks {
  scheduled: { activity(activityType: string, args: unknown[], runContext: RunContext): void };
}

const { scheduled } = proxySinks<ScheduledActivitySinks>();

class ReportScheduledActivities implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    const header = input.headers[runContextHeader];
    scheduled.activity(input.activityType, input.args, header ? defaultPayloadConverter.fromPayload<RunContext>(header) : {});
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [new ReportScheduledActivities()] });
