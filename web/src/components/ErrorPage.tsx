import { Link, isRouteErrorResponse, useRouteError } from 'react-router-dom';

/** The route error fallback. */
export function ErrorPage() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : undefined;
  if (error) console.error(error);
  return (
    <main className="error-page">
      <div className="error-card">
        <h1>Unexpected Application Error!</h1>
        {detail && <p className="muted">{detail}</p>}
        <div className="row-actions">
          <button type="button" className="btn btn-secondary" onClick={() => window.location.reload()}>
            Reload
          </button>
          <Link to="/" className="btn btn-primary" reloadDocument>
            Back to Home
          </Link>
        </div>
      </div>
    </main>
  );
}

export function NotFoundPage() {
  return (
    <section className="container page narrow center">
      <h1>Page not found</h1>
      <p className="muted">The page you are looking for does not exist.</p>
      <Link to="/" className="btn btn-primary">
        Explore Scenes
      </Link>
    </section>
  );
}
