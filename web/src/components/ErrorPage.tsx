/** The fallback of a page that threw while rendering (or of the app when config.json fails); loaded only then. */
function ErrorPage({ error }: { error?: unknown }) {
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
          <a href="/" className="btn btn-primary">
            Back to Home
          </a>
        </div>
      </div>
    </main>
  );
}

export default ErrorPage;
