import { z } from 'zod';
import { mailedPictureUrl } from '#core/jobs/outcome-mail';
import { pathParam, queryParams, type ApiEvent, type ApiResult } from '../lib/http';

/** The link's one parameter; what a valid token looks like is the core's to judge. */
const pictureLinkQuery = z.object({ token: z.string().min(1).max(100) });

/**
 * GET /api/jobs/{jobId}/picture?token=...: the outcome e-mail's picture link (public: a click from a mail
 * client carries no session; the token is the proof). It answers a redirect to a URL presigned at the click.
 */
export async function mailedPicture(event: ApiEvent): Promise<ApiResult> {
  const { token } = queryParams(event, pictureLinkQuery);
  const location = await mailedPictureUrl(pathParam(event, 'jobId'), token);
  // The token is in this page's address: no Referer carries it on, and no cache keeps the answer.
  return { statusCode: 302, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' };
}
