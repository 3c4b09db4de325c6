import { Component, type ReactNode } from 'react';
import { Link } from 'react-router-dom';

/** The fallback of a page that threw while rendering. */
export function ErrorPage({ error }: { error?: unknown }) {
  const detail = error instanceof Error ? error.message : undefined;
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

/** Catches a page that throws while rendering; a new location (`resetKey`) tries again. */
export class RouteErrorBoundary extends Component<{ resetKey: string; children: ReactNode }, { error: unknown; key: string }> {
  state = { error: undefined as unknown, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { error: unknown; key: string }) {
    return props.resetKey === state.key ? null : { error: undefined, key: props.resetKey };
  }

  componentDidCatch(error: unknown) {
    console.error(error);
  }

  render() {
    return this.state.error === undefined ? this.props.children : <ErrorPage error={this.state.error} />;
  }
}
