/**
 * The live frames of a rendering job: the latest frame the worker stored, and for an
 * animation a strip of frames in which the ones not rendered yet are empty slots. It
 * asks again whenever the job reports more frames (the history polls the jobs); the
 * data layer keeps the link it already has for a frame so images do not reload.
 */
import type { JobView } from '#shared/api-types';
import { useLiveFrames } from '../data/jobs';

export function LiveFrames({ job }: { job: JobView }) {
  const answer = useLiveFrames(job).data;
  if (!answer) return null;
  const latest = answer.latest?.url ?? null;
  return (
    <div className="live-preview" aria-label="Live preview">
      <div className="live-latest">
        {latest ? (
          <img src={latest} alt={`Latest rendered frame, frame ${answer.latest!.frame}`} />
        ) : (
          <span className="muted">The first frame shows here as soon as it is rendered.</span>
        )}
      </div>
      {answer.strip.length > 0 && (
        <ol className="frame-strip" aria-label={`Frames rendered: ${answer.framesDone} of ${answer.totalFrames}`}>
          {answer.strip.map((slot) => {
            const { url } = slot;
            return (
              <li key={slot.frame} className={`frame-slot ${url ? 'done' : 'empty'}`} data-frame={slot.frame} title={`Frame ${slot.frame}${url ? '' : ' (not rendered yet)'}`}>
                {url ? <img src={url} alt={`Frame ${slot.frame}`} loading="lazy" /> : <span className="sr-only">Frame {slot.frame} not rendered yet</span>}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
