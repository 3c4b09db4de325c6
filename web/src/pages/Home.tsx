import { useState } from 'react';
import { CATEGORIES, filterScenes, scenes, type Category } from '#shared/catalogue';
import { SearchIcon } from '../components/Icons';
import { EmptyState, SceneCard } from '../components/SceneCard';
import { useFavorites } from '../lib/favorites';
import { useSession } from '../lib/session';

const CATEGORY_LABELS: Record<Category, string> = {
  all: 'All',
  favorites: 'Favorites',
  text: 'Text',
  image: 'Image',
  sound: 'Sound',
  '3D': '3D',
};

export function HomePage() {
  const [search, setSearch] = useState('');
  const [category, setCategory] = useState<Category>('all');
  const { favoriteIds, processing, toggle } = useFavorites();
  // Until the stored session is read, a click on a heart could not know whether to save
  // the favorite or send the visitor to /login (and was silently dropped): wait for it.
  const { ready } = useSession();
  const visible = filterScenes(scenes, { search, category, favoriteIds });

  return (
    <>
      <section className="hero">
        <div className="container hero-inner">
          <p className="eyebrow">Cloud-rendered 3D templates</p>
          <h1>Transform Your Ideas Into Reality</h1>
          <p className="hero-lead">
            Pick a cinematic Blender scene, add your text, image, model or music, and get a studio-quality still or
            animation rendered in the cloud. No 3D skills, no software to install.
          </p>
          <div className="search">
            <SearchIcon />
            <label htmlFor="scene-search" className="sr-only">
              Search scenes
            </label>
            <input
              id="scene-search"
              type="search"
              placeholder="Search scenes..."
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
          </div>
        </div>
      </section>

      <section className="container catalogue" aria-labelledby="catalogue-title">
        <div className="catalogue-head">
          <h2 id="catalogue-title">Scene templates</h2>
          <div className="filters" role="group" aria-label="Filter by category">
            {CATEGORIES.map((value) => (
              <button
                key={value}
                type="button"
                className={`chip ${category === value ? 'active' : ''}`}
                aria-pressed={category === value}
                onClick={() => setCategory(value)}
              >
                {CATEGORY_LABELS[value]}
              </button>
            ))}
          </div>
        </div>

        {visible.length === 0 ? (
          category === 'favorites' && favoriteIds.length === 0 ? (
            <EmptyState title="No favorite scenes yet">Click the heart on any scene to save it here.</EmptyState>
          ) : (
            <EmptyState title="No scenes found">Try adjusting your search or filters.</EmptyState>
          )
        ) : (
          <div className="scene-grid">
            {visible.map((scene) => (
              <SceneCard
                key={scene.id}
                scene={scene}
                isFavorite={favoriteIds.includes(scene.id)}
                favoriteBusy={!ready || processing.has(scene.id)}
                onToggleFavorite={() => void toggle(scene.id)}
              />
            ))}
          </div>
        )}
      </section>

      <section className="container how" aria-labelledby="how-title">
        <h2 id="how-title">How it works</h2>
        <ol className="steps">
          <li>
            <strong>Choose a scene</strong>
            <span>Browse text, image, audio and 3D templates built in Blender.</span>
          </li>
          <li>
            <strong>Make it yours</strong>
            <span>Upload your file, pick colours and styles, set the resolution.</span>
          </li>
          <li>
            <strong>Render in the cloud</strong>
            <span>See the price up front, pay by card or credits, download the result.</span>
          </li>
        </ol>
      </section>
    </>
  );
}
