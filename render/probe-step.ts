import type { MediaDuration, UploadToMeasure } from '#core/ports';
import { probeRequestOf } from './lambda-runtime';

/**
 * The probe function's one step (RENDER_STEP=probe): measures the upload the request names,
 * read through the presigned URL it carries. A request that is not a probe of a key in the
 * uploads area, or whose URL does not name that key, fails before anything is read.
 * `measure` is the measurement this process makes itself (the entry point binds it:
 * composition/server.ts's measureUploadHere, ffprobe here).
 */
export function runProbe(event: unknown, measure: (upload: UploadToMeasure) => Promise<MediaDuration>): Promise<MediaDuration> {
  const { key, url } = probeRequestOf(event);
  return measure({ key, url });
}
