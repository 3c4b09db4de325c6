import { useNavigate } from 'react-router-dom';
import type { Scene } from '#shared/catalogue';
import { exampleImagesFor, getScene, previewVideoFor } from '#shared/catalogue';
import { SCENE_TYPE_LABEL } from '../components/Icons';
import { EmptyState, PreviewImage, useHoverVideo } from '../components/SceneCard';
import { PageLoading, useTimeoutFlag } from '../components/ui';
import { useFavorites } from '../lib/favorites';

/** Waiting for favorites stops after 3 seconds. */
export const FAVORITES_LOADING_TIMEOUT_MS = 3000;

function FavoriteCard({ scene, busy, onRemove }: { scene: Scene; busy: boolean; onRemove: () => void }) {
  const navigate = useNavigate();
  const hover = useHoverVideo(previewVideoFor(scene));
  const open = () => navigate(`/customize/${scene.id}`);
  return (
    <article className="favorite-card" onMouseEnter={hover.onEnter} onMouseLeave={hover.onLeave}>
      <div className="scene-media clickable" onClick={open} aria-hidden="true">
        <PreviewImage src={exampleImagesFor(scene)[0]} alt={`${scene.title} preview`} className="scene-image" />
        {hover.element}
      </div>
      <div className="favorite-body">
        <h2 className="scene-title">
          <a
            href={`/customize/${scene.id}`}
            onClick={(event) => {
              event.preventDefault();
              open();
            }}
          >
            {scene.title}
          </a>
        </h2>
        <p className="meta">
          <span className="muted">Type:</span> {SCENE_TYPE_LABEL[scene.type]}
        </p>
        <p className="description">{scene.description}</p>
        <button type="button" className="btn btn-secondary btn-small" disabled={busy} onClick={onRemove} aria-label={`Remove ${scene.title} from favorites`}>
          Remove
        </button>
      </div>
    </article>
  );
}

export default function FavoritesPage() {
  const { favorites, loading, processing, remove } = useFavorites();
  const navigate = useNavigate();
  const timedOut = useTimeoutFlag(FAVORITES_LOADING_TIMEOUT_MS, loading);

  return (
    <section className="container page">
      <h1>Your Favorite Scenes</h1>
      {loading && !timedOut && favorites.length === 0 ? (
        <PageLoading label="Loading your favorite scenes..." />
      ) : favorites.length === 0 ? (
        <EmptyState
          title="You haven't saved any favorite scenes yet."
          action={
            <button type="button" className="btn btn-primary" onClick={() => navigate('/')}>
              Explore Scenes
            </button>
          }
        />
      ) : (
        <div className="favorite-grid">
          {favorites.map((favorite) => {
            const scene = getScene(favorite.sceneId);
            if (!scene) {
              return (
                <article key={favorite.sceneId} className="favorite-card missing">
                  <div className="favorite-body">
                    <h2 className="scene-title">Scene information not available</h2>
                    <p className="meta">Scene ID: {favorite.sceneId}</p>
                    <button type="button" className="btn btn-secondary btn-small" disabled={processing.has(favorite.sceneId)} onClick={() => void remove(favorite.sceneId)}>
                      Remove
                    </button>
                  </div>
                </article>
              );
            }
            return <FavoriteCard key={favorite.sceneId} scene={scene} busy={processing.has(favorite.sceneId)} onRemove={() => void remove(favorite.sceneId)} />;
          })}
        </div>
      )}
    </section>
  );
}
