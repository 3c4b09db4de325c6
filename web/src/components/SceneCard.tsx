/**
 * A catalogue card: type icon, preview image, title, price and the favorite heart.
 * Hovering preloads the preview video and plays it (muted, looping) after 150 ms;
 * the whole card opens /customize/{id}.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { Scene } from '#shared/catalogue';
import { exampleImagesFor, previewVideoFor } from '#shared/catalogue';
import { formatUsd } from '#shared/pricing';
import { HeartIcon, SCENE_TYPE_LABEL, SceneTypeIcon } from './Icons';

export const HOVER_VIDEO_DELAY_MS = 150;

/** Hover-to-play for a preview video: preload on enter, play after the delay once loaded. */
export function useHoverVideo(src: string | undefined) {
  const video = useRef<HTMLVideoElement>(null);
  const timer = useRef<number | undefined>(undefined);
  const [hovering, setHovering] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [broken, setBroken] = useState(false);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const onEnter = () => {
    if (!src || broken) return;
    setHovering(true);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      const element = video.current;
      if (!element) return;
      element.muted = true;
      element.play().then(
        () => setPlaying(true),
        () => setPlaying(false),
      );
    }, HOVER_VIDEO_DELAY_MS);
  };
  const onLeave = () => {
    window.clearTimeout(timer.current);
    setPlaying(false);
    const element = video.current;
    if (element) {
      element.pause();
      element.currentTime = 0;
    }
  };
  const element =
    src && hovering && !broken ? (
      <video
        ref={video}
        className={`card-video ${playing ? 'visible' : ''}`}
        src={src}
        muted
        loop
        playsInline
        preload="auto"
        aria-hidden="true"
        tabIndex={-1}
        onError={() => setBroken(true)}
      />
    ) : null;
  return { onEnter, onLeave, element };
}

/** A preview image that falls back to a tasteful gradient when the file is missing. */
export function PreviewImage({ src, alt, className }: { src: string | undefined; alt: string; className?: string }) {
  const [failed, setFailed] = useState(false);
  if (!src || failed) {
    return (
      <div className={`preview-fallback ${className ?? ''}`} role="img" aria-label={alt}>
        <span aria-hidden="true">{alt.slice(0, 1)}</span>
      </div>
    );
  }
  return <img className={className} src={src} alt={alt} loading="lazy" decoding="async" onError={() => setFailed(true)} />;
}

export function SceneCard({
  scene,
  isFavorite,
  favoriteBusy,
  onToggleFavorite,
}: {
  scene: Scene;
  isFavorite: boolean;
  favoriteBusy: boolean;
  onToggleFavorite: () => void;
}) {
  const hover = useHoverVideo(previewVideoFor(scene));
  return (
    <article className="scene-card" onMouseEnter={hover.onEnter} onMouseLeave={hover.onLeave} onFocus={hover.onEnter} onBlur={hover.onLeave}>
      <div className="scene-media">
        <PreviewImage src={exampleImagesFor(scene)[0]} alt={`${scene.title} preview`} className="scene-image" />
        {hover.element}
        <span className="type-chip">
          <SceneTypeIcon type={scene.type} />
          {SCENE_TYPE_LABEL[scene.type]}
        </span>
      </div>
      <div className="scene-body">
        <h3 className="scene-title">
          <Link to={`/customize/${scene.id}`} className="stretched-link">
            {scene.title}
          </Link>
        </h3>
        <p className="scene-price">
          <span className="muted">from</span> <strong>{formatUsd(scene.price)}</strong>
        </p>
      </div>
      <button
        type="button"
        className={`heart ${isFavorite ? 'active' : ''}`}
        aria-pressed={isFavorite}
        aria-label={isFavorite ? `Remove ${scene.title} from favorites` : `Add ${scene.title} to favorites`}
        disabled={favoriteBusy}
        onClick={onToggleFavorite}
      >
        <HeartIcon filled={isFavorite} />
      </button>
    </article>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <h2>{title}</h2>
      {children && <p className="muted">{children}</p>}
      {action}
    </div>
  );
}
