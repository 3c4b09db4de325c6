import { describe, expect, it } from 'vitest';
import { functionNames, routes } from '#lambdas/routes';

describe('the route table', () => {
  it('when each function entry loads, it serves exactly the routes the table gives it', async () => {
    // createFunction throws at import when an entry and routes.ts disagree.
    for (const fn of functionNames) {
      const entry = await import(`#lambdas/functions/${fn}`);
      expect(typeof entry.handler, fn).toBe('function');
    }
    expect(new Set(routes.map((r) => r.fn))).toEqual(new Set(functionNames));
  });

  it('when two routes share a method and path, it is a mistake', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of routes) expect(route.path.startsWith('/api/')).toBe(true);
  });
});
