// A workflow interceptor for replay: reports every activity the workflow code schedules, with its
// arguments, through a sink the test reads. Sinks are the sandbox's only way out.
import {
  proxySinks,
  type ActivityInput,
  type Next,
  type Sinks,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

export interface ScheduledActivitySinks extends Sinks {
  scheduled: { activity(activityType: string, args: unknown[]): void };
}

const { scheduled } = proxySinks<ScheduledActivitySinks>();

class ReportScheduledActivities implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    scheduled.activity(input.activityType, input.args);
    return next(input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [new ReportScheduledActivities()] });
