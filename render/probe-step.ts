import { probeUpload, type ProbedDuration } from '../adapters/media-probe';
import { probeRequestOf } from './lambda-runtime';

/**
 * The probe function's one step (RENDER_STEP=probe): measures the upload the request names,
 * read through the presigned URL it carries. A request that is not a probe of a key in the
 * uploads area, or whose URL does not name that key, fails before anything is read.
 */
export function runProbe(event: unknown, ffprobePath: string): Promise<ProbedDuration> {
  const { key, url } = probeRequestOf(event);
  return probeUpload({ key, url }, ffprobePath);
}
