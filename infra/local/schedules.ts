import { scheduledJobs, type Period, type ScheduledJob } from '../schedules';
import { log, withLogScope } from '#observability/logger';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Local only: EventBridge's schedules (the schedule table, infra/schedules.ts), as timers
 * calling the same handlers the stack's rules call on AWS, loaded as the local API server
 * loads its functions. A daily job runs once at start, so a long stopped dev stack catches
 * up, then every 24 hours: a dev machine is seldom on at the hour AWS runs it.
 */
export function startSchedules(): () => void {
  const jobs: readonly ScheduledJob[] = scheduledJobs;
  const timers = jobs.map((job) => {
    const period: Period = job.local?.period ?? job.period;
    const run = runner(job.handler);
    if ('dailyAtUtc' in period) {
      run();
      return setInterval(run, DAY_MS);
    }
    return setInterval(run, period.everySeconds * 1000);
  });
  return () => timers.forEach(clearInterval);
}

/** One run of a scheduled handler at a time: a run still going (a slow receiver, a long sweep) is not joined by the next one, as one Lambda run at a time. */
function runner(name: string): () => void {
  let handler: Promise<() => Promise<unknown>> | undefined;
  let busy = false;
  return () => {
    if (busy) return;
    busy = true;
    handler ??= import(`#lambdas/scheduled/${name}`).then((module: { handler: () => Promise<unknown> }) => module.handler);
    withLogScope({ source: `schedule ${name}` }, () => handler!.then((run) => run()).catch((error) => log.error(`Scheduled ${name} failed`, error))).finally(() => (busy = false));
  };
}
