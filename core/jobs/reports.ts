import { getConfig } from '../config';
import { sendMail } from '../ports';
import { RateLimitedError } from '../errors';
import { consumeRateLimit } from '../rate-limits/rate-limits';
import { incrementCounters } from '../analytics/counters';
import type { JobRecord } from './jobs';
import { roundTo } from '#shared/numbers';

/** Durations and ratios in an e-mail: two decimals, empty when unknown. */
const readable = (value: number | undefined): string => (value === undefined ? '' : String(roundTo(value)));

export type ReportType = 'manual' | 'automatic' | 'time_accuracy';

/** A report's date: Europe/Paris time zone, French format. */
export function parisDate(date: Date): string {
  return new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', dateStyle: 'full', timeStyle: 'long' }).format(date);
}

export function jobLink(jobId: string): string {
  return `${getConfig().SITE_URL.replace(/\/$/, '')}/job-history?job=${encodeURIComponent(jobId)}`;
}

/**
 * E-mails a problem report to support with these fields: user, job, message,
 * date (Europe/Paris, French format), a link to the job and the report type.
 * Time-accuracy reports also describe the job's render settings and timings.
 */
export async function sendJobReport(job: JobRecord, reportType: ReportType, message: string, now = new Date()): Promise<void> {
  const config = getConfig();
  const lines = [
    `report_type: ${reportType}`,
    `user_id: ${job.userId}`,
    `user_email: ${job.userEmail}`,
    `job_id: ${job.jobId}`,
    `reported_on: ${parisDate(now)}`,
    `job_url: ${jobLink(job.jobId)}`,
    '',
    'error_message:',
    message,
  ];
  if (reportType === 'time_accuracy') {
    lines.push(
      '',
      `job_type: ${job.isStillRender ? 'still' : 'animation'}`,
      `scene_id: ${job.sceneId}`,
      `resolution: ${job.resolution_x}x${job.resolution_y}`,
      `estimated_minutes: ${readable(job.estimatedRenderTimeMinutes)}`,
      `actual_minutes: ${readable(job.actualRenderTimeMinutes)}`,
      // The ratio is the customer's wait against this promise when there is one, else actual against estimated minutes.
      ...(job.promisedSeconds ? [`promised_seconds: ${job.promisedSeconds}`] : []),
      `ratio: ${readable(job.timeAccuracy)}`,
      `render_options: ${job.options}`,
      `total_frames: ${job.total_frames}`,
      `file_width: ${job.fileWidth ?? ''}`,
      `file_height: ${job.fileHeight ?? ''}`,
      `file_duration: ${readable(job.fileDuration)}`,
    );
  }
  const subjects: Record<ReportType, string> = {
    manual: `Rendering issue reported on job ${job.jobId}`,
    automatic: `Automatic error report for job ${job.jobId}`,
    time_accuracy: `Render time accuracy report for job ${job.jobId}`,
  };
  await sendMail({ to: config.SUPPORT_EMAIL, replyTo: job.userEmail, subject: subjects[reportType], text: lines.join('\n') });
}

/** Problem reports e-mail support: a handful per user per hour stops a script flooding it. */
const REPORTS_PER_HOUR = 5;

/** A customer's own report of a problem with their job: e-mailed to support and counted, at most REPORTS_PER_HOUR an hour. */
export async function reportJobProblem(job: JobRecord, description: string, now = new Date()): Promise<void> {
  if (!(await consumeRateLimit('report', job.userId, REPORTS_PER_HOUR, 3600, now))) throw new RateLimitedError();
  await sendJobReport(job, 'manual', description, now);
  await incrementCounters(now, { errors_reported: 1 });
}
