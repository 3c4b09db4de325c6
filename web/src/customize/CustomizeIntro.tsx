/**
 * The top of the customise page (breadcrumb, title, description) and, before the page's
 * code has loaded, its preview as a new visitor first sees it. The same markup is the
 * static first paint of /customize/{id} (written into index.html at build by
 * web/first-paint.ts) and the route's loading state, so the scene and its preview
 * show at once and stay in place while the form loads.
 */
import { Link, useParams } from 'react-router-dom';
import { BACKGROUND_STYLE_OPTION, exampleImagesFor, getScene, type Scene } from '#shared/catalogue';
import { defaultOptions } from '#shared/options';
import { PageLoading } from '../components/ui';

export function CustomizeHead({ scene }: { scene: Scene }) {
  return (
    <>
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/">Scenes</Link> <span aria-hidden="true">/</span> <span>{scene.title}</span>
      </nav>
      <div className="customize-head">
        <div>
          <h1>Customize Scene {scene.id}</h1>
          <p className="scene-subtitle">
            <strong>{scene.title}</strong>
          </p>
          <p className="description">{scene.description}</p>
        </div>
      </div>
    </>
  );
}

/** The preview's first image (the video's poster) in the scene's default style. */
export function firstPreviewImage(scene: Scene): string {
  return exampleImagesFor(scene, defaultOptions(scene)[BACKGROUND_STYLE_OPTION])[0];
}

/** The page before its code is in: the head, the preview, and a spinner where the form goes. */
export function CustomizeIntro({ scene }: { scene: Scene }) {
  return (
    <section className="container page">
      <CustomizeHead scene={scene} />
      <div className="customize-layout">
        <aside className="customize-aside" aria-label="Scene preview">
          <div className="preview-area">
            <img src={firstPreviewImage(scene)} alt={`${scene.title} example`} fetchPriority="high" />
          </div>
        </aside>
        <PageLoading label="Loading scene..." />
      </div>
    </section>
  );
}

/** The customise route's loading state. */
export function CustomizeLoading() {
  const scene = getScene(useParams().sceneId ?? '');
  return scene ? <CustomizeIntro scene={scene} /> : <PageLoading label="Loading scene..." />;
}
