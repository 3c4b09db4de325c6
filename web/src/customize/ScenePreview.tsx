/**
 * The customise page's left third: the scene's preview video or images and its facts. Once
 * the customer has changed something, the live preview of their own settings takes the
 * example's place in the same box; when none can be had, the example stays with a quiet note.
 * The live preview is asked for here, so a picture or strip arriving re-renders this column,
 * not the form beside it.
 */
import { useEffect, useState } from 'react';
import type { Scene } from '#shared/catalogue';
import { exampleImagesFor, previewVideoFor } from '#shared/catalogue';
import { DEFAULT_END_FRAME } from '#shared/frames';
import { formatUsd } from '#shared/pricing';
import { SCENE_TYPE_LABEL, SceneTypeIcon } from '../components/Icons';
import { PreviewImage } from '../components/SceneCard';
import { Tooltip } from '../components/ui';
import { useLivePreview, type LivePreviewState } from '../data/previews';
import { backgroundStyleOf, buildPreviewRequest, type FormState } from './form-state';
import { LiveStrip } from './LiveStrip';

export function ScenePreview({ scene, state, frames, templateRatio }: { scene: Scene; state: FormState; frames: number; templateRatio: number | null }) {
  const live = useLivePreview(scene.id, buildPreviewRequest(scene, state, templateRatio));
  const style = backgroundStyleOf(state);
  const images = exampleImagesFor(scene, style);
  const video = previewVideoFor(scene, style);
  const [selected, setSelected] = useState(0);
  const [videoFailed, setVideoFailed] = useState(false);
  // An example picked from the thumbnails is shown over the live picture (or strip) until a newer one arrives.
  const [exampleOver, setExampleOver] = useState<LivePreviewState['image'] | LivePreviewState['strip']>(null);
  const liveImage = live.image && live.image !== exampleOver ? live.image : null;
  // A strip is Animation mode's: back in Still mode the example shows until the still's picture arrives.
  const liveStrip = state.mode === 'animation' && live.strip && live.strip !== exampleOver ? live.strip : null;
  const chooseExample = (index: number) => {
    setSelected(index);
    setExampleOver(live.strip ?? live.image);
  };
  const showVideo = video && !videoFailed && selected === 0;
  // The video takes its poster's place a task after the page has first shown: a media element's setup (its player, its
  // controls' styles) would otherwise add to the long task of the page's first layout on a slow phone. The poster is
  // the same picture, so nothing visibly changes.
  const [videoMounted, setVideoMounted] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setVideoMounted(true));
    return () => clearTimeout(timer);
  }, []);
  const previewFrames = state.mode === 'still' ? (scene.endFrame ?? DEFAULT_END_FRAME) : frames;
  return (
    <aside className="customize-aside" aria-label="Scene preview">
      {liveStrip ? (
        <LiveStrip title={scene.title} strip={liveStrip} updating={live.status === 'loading'} />
      ) : (
        <div className="preview-area">
          {liveImage ? (
            <img className="live-picture" src={liveImage} alt={`${scene.title} live preview`} />
          ) : showVideo && videoMounted ? (
            <video key={video} src={video} poster={images[0]} autoPlay muted loop playsInline aria-label={`${scene.title} preview animation`} onError={() => setVideoFailed(true)} />
          ) : showVideo ? (
            <img src={images[0]} alt={`${scene.title} example`} />
          ) : (
            <PreviewImage key={images[selected]} src={images[selected]} alt={`${scene.title} example`} />
          )}
          {liveImage ? (
            <span className="preview-caption">
              Live preview
              {live.status === 'loading' && ' · Updating…'}
            </span>
          ) : (
            <span className="preview-caption">
              Preview · {previewFrames} frames at 30 fps
            </span>
          )}
        </div>
      )}
      {/* Always there, so screen readers hear the note when it appears. */}
      <p className="live-preview-note" role="status">
        {live.status === 'failed' ? live.error : ''}
      </p>
      {images.length > 1 && (
        <div className="thumbs" role="group" aria-label="Example images">
          {images.map((image, index) => (
            <button key={image} type="button" aria-pressed={!liveImage && !liveStrip && selected === index} aria-label={`Example ${index + 1}`} onClick={() => chooseExample(index)}>
              <img src={image} alt="" />
            </button>
          ))}
        </div>
      )}
      <dl className="aside-facts">
        <div className="fact">
          <dt>Type</dt>
          <dd>
            <SceneTypeIcon type={scene.type} /> {SCENE_TYPE_LABEL[scene.type]}
          </dd>
        </div>
        <div className="fact">
          <dt>
            Modes <Tooltip text="Still renders one image; animation renders every frame as a video." />
          </dt>
          <dd>{scene.supportsModes.map((mode) => (mode === 'still' ? 'Still' : 'Animation')).join(' · ')}</dd>
        </div>
        <div className="fact">
          <dt>
            Transparent <Tooltip text="Whether the scene can drop its background: a transparent PNG or a WebM with alpha, to composite over your own footage." />
          </dt>
          <dd>{scene.canDropBackground ? 'Available' : 'Not available'}</dd>
        </div>
        <div className="fact">
          <dt>Starting at</dt>
          <dd>{formatUsd(scene.price)}</dd>
        </div>
        <div className="fact">
          <dt>
            Frames <Tooltip text="Animations render at 30 frames per second. Audio scenes render one frame per 1/30 s of your track." />
          </dt>
          <dd>{frames}</dd>
        </div>
      </dl>
    </aside>
  );
}
