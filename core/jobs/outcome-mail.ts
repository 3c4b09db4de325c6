/**
 * The e-mail a user gets when a render finishes or fails: the scene, a picture of the
 * render (a link to its last frame's preview, valid as long as download links), a link
 * to the job in the job history, and for a failure the reason and the refund.
 *
 * Exactly once per outcome: a conditional flag on the job item ('done#1', 'failed#2':
 * the status and the attempt that reached it) is claimed before sending, so a second
 * delivery of the same outcome (a retried stream record, two workers racing) sends
 * nothing, while a resumed job that fails or finishes again is a new outcome. When the
 * mail cannot be sent the flag is given back, so a retry can send it.
 */
import { getScene } from '#shared/catalogue';
import { latestFrame } from '#shared/live-preview';
import { OUTPUT_FORMATS, outputFormatOf } from '#shared/output-formats';
import { sendMail } from '../ports';
import { DOWNLOAD_URL_SECONDS, outputExists, presignInline } from '../storage/storage';
import { getUser, wantsOutcomeEmails } from '../users/users';
import { framePreviewKey } from './live-frames';
import { jobLink } from './reports';
import { updateJobAndRead, type JobRecord } from './jobs';
import { log } from '#observability/logger';

export type OutcomeMailResult = 'sent' | 'already-sent' | 'not-wanted' | 'not-final' | 'failed';

/** The outcome a job's final state stands for. */
export const outcomeKey = (job: Pick<JobRecord, 'status' | 'attempts'>): string => `${job.status}#${job.attempts ?? 1}`;

/** Sends the outcome e-mail of a done or failed job once; never throws (a lost e-mail must not fail a render). */
export async function sendJobOutcomeEmail(job: JobRecord, now = new Date()): Promise<OutcomeMailResult> {
  if (job.status !== 'done' && job.status !== 'failed') return 'not-final';
  try {
    const user = await getUser(job.userId);
    if (user && !wantsOutcomeEmails(user)) return 'not-wanted';
    const key = outcomeKey(job);
    const claimed = await updateJobAndRead(job.jobId, {
      set: { outcomeEmailFor: key, outcomeEmailAt: now.toISOString() },
      whenStatusIn: [job.status],
      condition: '(attribute_not_exists(outcomeEmailFor) OR outcomeEmailFor <> :outcome)',
      conditionValues: { ':outcome': key },
    });
    if (!claimed) return 'already-sent';
    try {
      await sendMail(await outcomeMessage(claimed, user?.email ?? job.userEmail));
      return 'sent';
    } catch (error) {
      await updateJobAndRead(job.jobId, { remove: ['outcomeEmailFor', 'outcomeEmailAt'], condition: 'outcomeEmailFor = :outcome', conditionValues: { ':outcome': key } });
      throw error;
    }
  } catch (error) {
    log.error('Outcome e-mail not sent', { jobId: job.jobId, error });
    return 'failed';
  }
}

/** A link to the render's picture: the last stored frame's preview, when there is one. */
async function pictureLink(job: JobRecord): Promise<string | null> {
  const frame = job.status === 'done' ? job.total_frames : latestFrame(job.uploaded_frames ?? []);
  if (frame === null) return null;
  const key = framePreviewKey(job, frame);
  return (await outputExists(key)) ? presignInline(key, 'image/jpeg', DOWNLOAD_URL_SECONDS) : null;
}

export async function outcomeMessage(job: JobRecord, to: string) {
  const title = getScene(job.sceneId)?.title ?? `Scene ${job.sceneId}`;
  const what = job.isStillRender ? 'still image' : 'animation';
  const picture = await pictureLink(job);
  const lines: string[] = [];
  if (job.status === 'done') {
    lines.push(`Your ${what} of "${title}" is ready (${OUTPUT_FORMATS[outputFormatOf(job)].label}).`, '', `Download it from your job history: ${jobLink(job.jobId)}`);
  } else {
    lines.push(`Your ${what} of "${title}" failed.`, '', `Reason: ${job.crashReason ?? 'not known'}`);
    if (job.paymentStatus === 'refunded') {
      lines.push(`Refund: ${job.refundCredits !== undefined ? `${job.refundCredits.toFixed(2)} credits were` : 'the price was'} returned to your balance.`);
    } else if (job.paymentMethod === 'free' || job.isTest) {
      lines.push('Refund: none needed, this render was free.');
    } else {
      lines.push('Refund: none, the render failed because of its input. Please check your file and try again.');
    }
    lines.push('', `See the job, report the problem or resume it: ${jobLink(job.jobId)}`);
  }
  if (picture) lines.push('', `Picture of the render (link valid for 7 days): ${picture}`);
  lines.push('', 'You get this e-mail because render notifications are on. Switch them off on your account page.');
  return { to, subject: job.status === 'done' ? `Your render of ${title} is ready` : `Your render of ${title} failed`, text: lines.join('\n') };
}
