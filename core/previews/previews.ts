/**
 * Live previews (POST /api/previews): a small picture of the customer's own settings, rendered
 * by a warm scene server (the previewer port). No job, no ledger entry, no Job History row, no
 * e-mail: only a rate-limit count and the picture kept under the hash of what it shows.
 *
 * One account's share of the previewer: one render at a time (core/previews/preview-flights.ts;
 * a newer request replaces the one waiting behind it), held until the render has surely ended,
 * not only while the API waits; its requests a minute are the rate limit's. Visitors, one turn
 * per address, share 40 % of the previewer's executions however many addresses they come from.
 */
import { createHash } from 'node:crypto';
import { getScene, requiredUploadKind } from '#shared/catalogue';
import { resolveOptions } from '#shared/options';
import { LIVE_PREVIEW } from '#shared/render-manifest';
import type { PreviewRequest } from '#shared/schemas';
import type { LivePreview, LivePreviewStrip } from '#shared/api-types';
import { isStripOfClip, liveStripFrames, stripFollowsAudio } from '#shared/live-preview';
import { quoteRender } from '#shared/pricing';
import { DomainError, dependencyFailure, InvalidRequestError, RateLimitedError, ServiceUnavailableError } from '../errors';
import { ports } from '../ports';
import { consumeWindow } from '../rate-limits/rate-limits';
import { headInput, isOwnInputKey, keepPreview, presignInputRead, readKeptPreview } from '../storage/storage';
import { livePreviewSize } from '#shared/preview-size';
import { refuseUnsafePreviewUpload } from './inspected-upload';
import { CallerGoneError, takePreviewTurn, takeVisitorPlace, visitorRendersAtOnce } from './preview-flights';
import { UPLOAD_MISSING } from '../jobs/render-jobs';
import { log } from '#observability/logger';
import { getConfig } from '../config';

/** Warm-ups (a customise page that opens) one asker may send in an hour. */
export const WARM_UPS_PER_HOUR = 120;
/** The answer's deadline: past it the customer's page keeps its picture and the API answers 503. */
export const PREVIEW_ANSWER_MS = 5_000;
/** Changes when what a kept preview looks like changes (the scripts, the preview's policy). */
const PREVIEW_CACHE_VERSION = `1:${LIVE_PREVIEW.maxSide}:${LIVE_PREVIEW.samples}:${LIVE_PREVIEW.denoise ? 'denoised' : 'raw'}`;

/** Who asks: a signed-in customer or an API key's owner, or a visitor known by a salted hash of their address. */
export type PreviewAsker = { userId: string } | { visitor: string };

const subjectOf = (asker: PreviewAsker) => ('userId' in asker ? `user#${asker.userId}` : `visitor#${asker.visitor}`);

/** How long the preview function may read the upload through its link: past its whole run (its 20 s timeout), not the 120 s a probe's link lives. */
const INPUT_LINK_SECONDS = 30;

/**
 * A live preview of the asker's settings. `callerGone` fires when the HTTP client has gone (locally:
 * API Gateway does not tell a function): its queued work is dropped, as at the answer's deadline.
 */
export async function livePreview(asker: PreviewAsker, request: PreviewRequest, callerGone?: AbortSignal): Promise<LivePreview | LivePreviewStrip> {
  const answerBy = Date.now() + PREVIEW_ANSWER_MS;
  const config = getConfig();
  const subject = subjectOf(asker);
  const limit = 'userId' in asker ? config.PREVIEWS_PER_MINUTE : config.VISITOR_PREVIEWS_PER_MINUTE;
  const allowed = await consumeWindow('preview', subject, limit, 60);
  if (!allowed.allowed) throw new RateLimitedError('Too many previews in the last minute. The picture will update again in a moment.', allowed.resetSeconds);
  const scene = getScene(request.sceneId)!;
  let upload: { key: string; etag: string } | undefined;
  if (request.uploadKey) {
    // Only the caller's own uploads are rendered: another prefix is as good as missing.
    const head = 'userId' in asker && isOwnInputKey(asker.userId, request.uploadKey) ? await headInput(request.uploadKey) : undefined;
    if (!head) throw new InvalidRequestError(UPLOAD_MISSING, { field: 'uploadKey' });
    upload = { key: request.uploadKey, etag: head.etag };
  }
  const size = livePreviewSize(request.resolutionX, request.resolutionY);
  // A strip shows the clip the paid animation would make: its length is the job's quote's (the media's duration for
  // an audio scene, the scene's end frame otherwise), never a number the caller sends.
  const clipFrames = request.strip ? quoteRender(scene, { mode: 'animation', resolutionX: request.resolutionX, resolutionY: request.resolutionY, mediaDurationSeconds: request.strip.mediaDurationSeconds }).frames : undefined;
  const strip = request.strip && clipFrames ? { frames: liveStripFrames(clipFrames, request.strip.frames), clipFrames } : undefined;
  // Kept per asker and by what is rendered (its size, not the frame's shape): whether a picture was kept tells nobody
  // what another asker previewed, by its answer or by how soon it comes.
  const hash = createHash('sha256')
    .update(JSON.stringify([PREVIEW_CACHE_VERSION, subject, scene.id, size.x, size.y, request.customText ?? '', resolveOptions(scene, request.options), request.alignment ?? null, upload ?? null]))
    .digest('hex');
  // A strip is not kept: the page keeps each strip it was answered, and one stored picture per hash is a still's.
  const kept = strip ? undefined : await readKeptPreview(hash);
  if (kept) return { image: dataUrl(kept) };
  const kind = requiredUploadKind(scene);
  if (upload && kind) await refuseUnsafePreviewUpload(upload, kind);

  const gone = AbortSignal.any([AbortSignal.timeout(Math.max(0, answerBy - Date.now())), ...(callerGone ? [callerGone] : [])]);
  const previewer = ports().previewer();
  const input = upload ? { ...upload, url: await presignInputRead(upload.key, { etag: upload.etag, seconds: INPUT_LINK_SECONDS }) } : undefined;
  const rendering = (async () => {
    const turn = await takePreviewTurn(subject, previewer.reachMs, gone);
    const turns = [turn];
    if ('visitor' in asker) {
      const place = await takeVisitorPlace(visitorRendersAtOnce(config.PREVIEW_CONCURRENCY), previewer.reachMs).catch(async (error: unknown) => {
        await turn.release();
        throw error;
      });
      if (!place) {
        await turn.release();
        return { notRendered: 'queue-full' } as const;
      }
      turns.push(place);
    }
    const giveBack = () => Promise.all(turns.map((held) => held.release()));
    const rendered = previewer.render(
      {
        sceneId: scene.id,
        customText: request.customText,
        options: request.options,
        alignment: request.alignment,
        resolutionX: request.resolutionX,
        resolutionY: request.resolutionY,
        deadline: answerBy,
        ...(input ? { input } : {}),
        ...(strip ? { strip } : {}),
      },
      gone,
    );
    // The turn (and a visitor's place) goes back when the render has ended, answered in time or not; a render that may
    // run on (the function still running after the API stopped waiting) keeps it until its reach has passed.
    void rendered.then(giveBack, (error: unknown) => (previewMayRunOn(error) ? undefined : giveBack())).catch((error: unknown) => log.warn('A live preview\'s turn was not given back: it ends with its reach', { error }));
    const answer = await rendered;
    // Kept even when the caller has gone: the same settings asked again find it. Keeping is a saving, not the answer:
    // a picture that could not be kept is still shown.
    if ('image' in answer) {
      await keepPreview(hash, Buffer.from(answer.image, 'base64')).catch((error: unknown) => log.warn('A live preview was not kept', { error }));
    }
    return answer;
  })();
  const rendered = await answerBefore(rendering, gone);
  if ('userError' in rendered) throw new InvalidRequestError(rendered.userError, upload ? { field: 'uploadKey' } : undefined);
  if ('notRendered' in rendered) throw rendered.notRendered === 'queue-full' ? busy() : lateAnswer();
  if ('strip' in rendered) {
    // The frames the previewer was asked for, in order, each once: anything else is not an answer to this request. An
    // audio scene's are the loudest moments of the customer's audio, chosen where it was read: as many frames of the
    // clip, in order, each once, its first and last among them.
    if (!strip) throw unavailable();
    const asked = strip.frames;
    const answered = rendered.strip.map(({ frame }) => frame);
    const fits = stripFollowsAudio(scene) ? isStripOfClip(answered, strip.clipFrames, asked.length) : answered.length === asked.length && answered.every((frame, index) => frame === asked[index]);
    if (!fits) throw unavailable();
    return { strip: { clipFrames: strip.clipFrames, frames: rendered.strip.map(({ frame, image }) => ({ frame, image: dataUrl(Buffer.from(image, 'base64')) })) } };
  }
  if (strip) throw unavailable();
  return { image: dataUrl(Buffer.from(rendered.image, 'base64')) };
}

/** A render the previewer may still be running after its failure reached the caller: it stopped waiting, not the render (adapters/preview-function.ts marks it). */
function previewMayRunOn(error: unknown): boolean {
  return (error as { previewMayRunOn?: boolean } | undefined)?.previewMayRunOn === true;
}

const lateAnswer = () => new ServiceUnavailableError('farm', 2, 'The preview is taking longer than usual. Your picture will update on your next change.');
const busy = () => new ServiceUnavailableError('farm', 2, 'Previews are busy right now. Your picture will update on your next change.');
const unavailable = () => new ServiceUnavailableError('farm', 2, PREVIEWS_UNAVAILABLE);

/**
 * A customise page opened: its scene's server is started, so the customer's first change finds it
 * warm. Not waited for (a cold start takes longer than a preview may): the page goes on at once.
 */
export async function warmPreviews(asker: PreviewAsker, sceneId: number): Promise<void> {
  const allowed = await consumeWindow('preview-warm-up', subjectOf(asker), WARM_UPS_PER_HOUR, 3600);
  if (!allowed.allowed) throw new RateLimitedError('Too many previews started in the last hour. Please try again later.', allowed.resetSeconds);
  void answerBefore(ports().previewer().warm(sceneId), AbortSignal.timeout(PREVIEW_ANSWER_MS)).catch(() => {});
}

const PREVIEWS_UNAVAILABLE = 'Previews are unavailable right now. Your settings are kept; please try again in a moment.';

const dataUrl = (jpeg: Buffer) => `data:image/jpeg;base64,${jpeg.toString('base64')}`;

/** The previewer's answer before `gone` fires (its deadline, or its caller went); its failure or silence is a 503 with Retry-After (nothing is charged for a preview anyway). */
async function answerBefore<T>(work: Promise<T>, gone: AbortSignal): Promise<T> {
  let stop: (() => void) | undefined;
  const late = new Promise<never>((_, reject) => {
    stop = () => reject(new CallerGoneError('The preview\'s caller stopped waiting'));
    if (gone.aborted) stop();
    else gone.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([work, late]);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (error instanceof CallerGoneError) throw lateAnswer();
    // The table or storage failing around the render (a turn, a visitor's place) is named as itself, not as the farm.
    const ours = dependencyFailure(error);
    if (ours && ours.dependency !== 'farm') throw ours;
    log.error('A live preview failed', { error });
    throw unavailable();
  } finally {
    if (stop) gone.removeEventListener('abort', stop);
    // Whatever the work does after the answer went is its own (its failure is logged where it matters, not here).
    work.catch(() => undefined);
  }
}
