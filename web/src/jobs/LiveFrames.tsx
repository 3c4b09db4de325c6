/**
 * The live preview of a rendering job: the latest frame the worker stored, and for an
 * animation a strip of frames in which the ones not rendered yet are empty slots. It
 * asks again whenever the job reports more frames (the history polls the jobs), and
 * keeps the link it already has for a frame so images do not reload on every poll.
 */
import { useEffect, useState } from 'react';
import type { JobView } from '../../../shared/api-types';
import type { FrameSlot, LiveFrames as LiveFramesAnswer } from '../../../shared/live-preview';
import { api } from '../lib/api';

export function LiveFrames({ job }: { job: JobView }) {
  const [answer, setAnswer] = useState<LiveFramesAnswer | null>(null);
  const [links, setLinks] = useState<Record<number, string>>({});
  const framesStored = job.uploaded_frames.length;
  useEffect(() => {
    let cancelled = false;
    api
      .jobFrames(job.jobId)
      .then((next) => {
        if (cancelled) return;
        setAnswer(next);
        setLinks((known) => {
          const merged = { ...known };
          for (const slot of [...next.strip, ...(next.latest ? [next.latest] : [])]) if (slot.url && !merged[slot.frame]) merged[slot.frame] = slot.url;
          return merged;
        });
      })
      // A missed poll leaves the last preview on screen; the next frame asks again.
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [job.jobId, job.status, framesStored]);

  if (!answer) return null;
  const linkOf = (slot: FrameSlot | null) => (slot?.url ? (links[slot.frame] ?? slot.url) : null);
  const latest = linkOf(answer.latest);
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
            const url = linkOf(slot);
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
