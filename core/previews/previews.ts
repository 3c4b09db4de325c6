/**
 * Live previews (POST /api/previews): a small picture of the customer's own settings, rendered
 * by a warm scene server (the previewer port). No job, no ledger entry, no Job History row, no
 * e-mail: only a rate-limit count and the picture kept under the hash of what it shows.
 */
import { createHash } from 'node:crypto';
import { getScene, requiredUploadKind } from '#shared/catalogue';
import { resolveOptions } from '#shared/options';
import { LIVE_PREVIEW } from '#shared/render-manifest';
import type { PreviewRequest } from '#shared/schemas';
import type { LivePreview } from '#shared/api-types';
import { DomainError, InvalidRequestError, RateLimitedError, ServiceUnavailableError } from '../errors';
import { ports } from '../ports';
import { consumeWindow } from '../rate-limits/rate-limits';
import { headInput, isOwnInputKey, keepPreview, presignInputRead, readKeptPreview } from '../storage/storage';
import { refuseUnsafeUpload } from '../uploads/stored-upload';
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

export async function livePreview(asker: PreviewAsker, request: PreviewRequest): Promise<LivePreview> {
  const config = getConfig();
  const limit = 'userId' in asker ? config.PREVIEWS_PER_MINUTE : config.VISITOR_PREVIEWS_PER_MINUTE;
  const allowed = await consumeWindow('preview', subjectOf(asker), limit, 60);
  if (!allowed.allowed) throw new RateLimitedError('Too many previews in the last minute. The picture will update again in a moment.', allowed.resetSeconds);
  const scene = getScene(request.sceneId)!;
  let upload: { key: string; etag: string } | undefined;
  if (request.uploadKey) {
    // Only the caller's own uploads are rendered: another prefix is as good as missing.
    const head = 'userId' in asker && isOwnInputKey(asker.userId, request.uploadKey) ? await headInput(request.uploadKey) : undefined;
    if (!head) throw new InvalidRequestError(UPLOAD_MISSING, { field: 'uploadKey' });
    upload = { key: request.uploadKey, etag: head.etag };
  }
  const hash = createHash('sha256')
    .update(JSON.stringify([PREVIEW_CACHE_VERSION, scene.id, shapeOf(request), request.customText ?? '', resolveOptions(scene, request.options), request.alignment ?? null, upload ?? null]))
    .digest('hex');
  const kept = await readKeptPreview(hash);
  if (kept) return { image: dataUrl(kept), cached: true };
  const kind = requiredUploadKind(scene);
  if (upload && kind) await refuseUnsafeUpload(upload.key, kind);
  const rendered = await withinDeadline(async () =>
    ports()
      .previewer()
      .render({
        sceneId: scene.id,
        customText: request.customText,
        options: request.options,
        alignment: request.alignment,
        resolutionX: request.resolutionX,
        resolutionY: request.resolutionY,
        ...(upload ? { input: { key: upload.key, url: await presignInputRead(upload.key) } } : {}),
      }),
  );
  if ('userError' in rendered) throw new InvalidRequestError(rendered.userError, upload ? { field: 'uploadKey' } : undefined);
  const jpeg = Buffer.from(rendered.image, 'base64');
  await keepPreview(hash, jpeg);
  return { image: dataUrl(jpeg), cached: false, renderMs: rendered.renderMs };
}

/**
 * A customise page opened: its scene's server is started, so the customer's first change finds it
 * warm. Not waited for (a cold start takes longer than a preview may): the page goes on at once.
 */
export async function warmPreviews(asker: PreviewAsker, sceneId: number): Promise<void> {
  const allowed = await consumeWindow('preview-warm-up', subjectOf(asker), WARM_UPS_PER_HOUR, 3600);
  if (!allowed.allowed) throw new RateLimitedError('Too many previews started in the last hour. Please try again later.', allowed.resetSeconds);
  void withinDeadline(() => ports().previewer().warm(sceneId)).catch(() => {});
}

/** The frame's shape, which is all a preview keeps of the resolution (its size is the preview's own). */
function shapeOf({ resolutionX, resolutionY }: PreviewRequest): string {
  const divisor = gcd(resolutionX, resolutionY);
  return `${resolutionX / divisor}:${resolutionY / divisor}`;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

const dataUrl = (jpeg: Buffer) => `data:image/jpeg;base64,${jpeg.toString('base64')}`;

/** The previewer's answer within PREVIEW_ANSWER_MS; its failure or silence is a 503 with Retry-After (nothing is charged for a preview anyway). */
async function withinDeadline<T>(work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ServiceUnavailableError('farm', 2, 'The preview is taking longer than usual. Your picture will update on your next change.')), PREVIEW_ANSWER_MS);
  });
  try {
    return await Promise.race([work(), late]);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    log.error('A live preview failed', { error });
    throw new ServiceUnavailableError('farm', 2, 'Previews are unavailable right now. Your settings are kept; please try again in a moment.');
  } finally {
    clearTimeout(timer);
  }
}
