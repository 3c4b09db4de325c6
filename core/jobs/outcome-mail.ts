/**
 * The e-mail a user gets when a render finishes or fails: the scene, a picture of the
 * render (a link to its last frame's preview that opens for PICTURE_LINK_DAYS), a link
 * to the job in the job history, and for a failure the reason and the refund.
 *
 * Exactly once per outcome: a conditional flag on the job item ('done#1', 'failed#2':
 * the status and the attempt that reached it) is claimed before sending, so a second
 * delivery of the same outcome (a retried stream record, two workers racing) sends
 * nothing, while a resumed job that fails or finishes again is a new outcome. When the
 * mail cannot be sent the flag is given back, so a retry can send it.
 *
 * The picture link is the product's, not storage's: a URL presigned by a function works
 * only while the role session that signed it lasts (hours on Lambda, whatever its expiry
 * says), so the e-mail carries a link to the API with a token, and each click presigns a
 * fresh short-lived URL (mailedPictureUrl).
 */
import { getScene } from '#shared/catalogue';
import { latestFrame } from '#shared/live-frames';
import { OUTPUT_FORMATS, outputFormatOf } from '#shared/output-formats';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { getConfig } from '../config';
import { InvalidRequestError, NotFoundError } from '../errors';
import { sendMail } from '../ports';
import { outputExists, presignInline } from '../storage/storage';
import { getUser, wantsOutcomeEmails } from '../users/users';
import { framePreviewKey } from './live-frames';
import { jobLink } from './reports';
import { getJob, updateJobAndRead, type JobRecord } from './jobs';
import { isIn } from '#shared/job-states';
import { log } from '#observability/logger';

export type OutcomeMailResult = 'sent' | 'already-sent' | 'not-wanted' | 'not-final' | 'failed';

/** The outcome a job's final state stands for. */
export const outcomeKey = (job: Pick<JobRecord, 'status' | 'attempts'>): string => `${job.status}#${job.attempts ?? 1}`;

/** How long the e-mail's picture link opens, as the e-mail says. */
export const PICTURE_LINK_DAYS = 7;
/** A click on it gets a URL presigned then, for this long: the browser follows it at once. */
export const PICTURE_REDIRECT_SECONDS = 300;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The link the e-mail carries: the API's, on the site's address (CloudFront forwards /api/*). */
const pictureUrl = (jobId: string, token: string) =>
  `${getConfig().SITE_URL.replace(/\/$/, '')}/api/jobs/${encodeURIComponent(jobId)}/picture?token=${token}`;

/** Sends the outcome e-mail of a done or failed job once; never throws (a lost e-mail must not fail a render). */
export async function sendJobOutcomeEmail(job: JobRecord, now = new Date()): Promise<OutcomeMailResult> {
  if (!isIn('final', job.status)) return 'not-final';
  try {
    const user = await getUser(job.userId);
    if (user && !wantsOutcomeEmails(user)) return 'not-wanted';
    const key = outcomeKey(job);
    const frame = await pictureFrame(job);
    // Only its hash is kept: the item never holds what opens the link.
    const token = frame === null ? undefined : randomBytes(32).toString('base64url');
    const claimed = await updateJobAndRead(job.jobId, {
      set: {
        outcomeEmailFor: key,
        outcomeEmailAt: now.toISOString(),
        ...(token && frame !== null ? { pictureLink: { tokenHash: tokenHash(token), frame, until: new Date(now.getTime() + PICTURE_LINK_DAYS * 86_400_000).toISOString() } } : {}),
      },
      // A new outcome without a picture closes the last one's link.
      ...(token ? {} : { remove: ['pictureLink'] }),
      during: job.status,
      condition: '(attribute_not_exists(outcomeEmailFor) OR outcomeEmailFor <> :outcome)',
      conditionValues: { ':outcome': key },
    });
    if (!claimed) return 'already-sent';
    try {
      await sendMail(outcomeMessage(claimed, user?.email ?? job.userEmail, token ? pictureUrl(job.jobId, token) : null));
      return 'sent';
    } catch (error) {
      await updateJobAndRead(job.jobId, { remove: ['outcomeEmailFor', 'outcomeEmailAt', 'pictureLink'], condition: 'outcomeEmailFor = :outcome', conditionValues: { ':outcome': key } });
      throw error;
    }
  } catch (error) {
    log.error('Outcome e-mail not sent', { jobId: job.jobId, error });
    return 'failed';
  }
}

/** The frame whose preview pictures the render: the last stored one, when its preview is there. */
async function pictureFrame(job: JobRecord): Promise<number | null> {
  const frame = job.status === 'done' ? job.total_frames : latestFrame(job.uploaded_frames ?? []);
  if (frame === null) return null;
  return (await outputExists(framePreviewKey(job, frame))) ? frame : null;
}

/**
 * A click on the e-mail's picture link: the token must be the one the job's last outcome
 * e-mail carried (compared by hash, in constant time) and the link within its days. The
 * picture is the job owner's, under the owner's prefix built from the job item, never
 * from the request; the answer is a URL presigned now, with the credentials of now.
 * Whatever is wrong answers the same 404, so a guess learns nothing about the job.
 */
export async function mailedPictureUrl(jobId: string, token: string, now = new Date()): Promise<string> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw new InvalidRequestError('token: not a picture link token.', { field: 'token' });
  const job = await getJob(jobId);
  const link = job?.pictureLink;
  const shown = Buffer.from(tokenHash(token), 'hex');
  const expected = link ? Buffer.from(link.tokenHash, 'hex') : undefined;
  if (!job || !link || !expected || expected.length !== shown.length || !timingSafeEqual(expected, shown)) throw new NotFoundError('No such picture link.');
  if (Date.parse(link.until) <= now.getTime()) throw new NotFoundError(`This picture link has expired (it opens for ${PICTURE_LINK_DAYS} days): see the render in your job history.`);
  return presignInline(framePreviewKey(job, link.frame), 'image/jpeg', PICTURE_REDIRECT_SECONDS);
}

/** The e-mail's text; `picture` is its picture link, when the render has a picture. */
export function outcomeMessage(job: JobRecord, to: string, picture: string | null) {
  const title = getScene(job.sceneId)?.title ?? `Scene ${job.sceneId}`;
  const what = job.isStillRender ? 'still image' : 'animation';
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
  if (picture) lines.push('', `Picture of the render (link valid for ${PICTURE_LINK_DAYS} days): ${picture}`);
  lines.push('', 'You get this e-mail because render notifications are on. Switch them off on your account page.');
  return { to, subject: job.status === 'done' ? `Your render of ${title} is ready` : `Your render of ${title} failed`, text: lines.join('\n') };
}
