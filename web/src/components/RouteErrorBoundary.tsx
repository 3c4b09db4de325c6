import { Component, Suspense, lazy, type ReactNode } from 'react';

const ErrorPage = lazy(() => import('./ErrorPage'));

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
    if (this.state.error === undefined) return this.props.children;
    return (
      <Suspense fallback={null}>
        <ErrorPage error={this.state.error} />
      </Suspense>
    );
  }
}
