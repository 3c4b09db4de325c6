import { Link } from 'react-router-dom';

/** Any path no route matches. */
export default function NotFoundPage() {
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
