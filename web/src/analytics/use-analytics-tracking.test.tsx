import { act, render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, Outlet } from 'react-router-dom';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageView, sessionRecord } from '#shared/schemas';
import { PAGE_VIEWS_URL, SESSIONS_URL, trackRenderStart, useAnalyticsTracking } from './index';

function Root() {
  useAnalyticsTracking();
  return <Outlet />;
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function blobJson(blob: Blob): Promise<unknown> {
  return JSON.parse(await blob.text());
}

describe('useAnalyticsTracking', () => {
  it('when the route changes, it reports each page view once (StrictMode too) and the unload beacon carries a valid session', async () => {
    const beacons: [string, Blob][] = [];
    Object.defineProperty(navigator, 'sendBeacon', { configurable: true, value: (url: string, body: Blob) => (beacons.push([url, body]), true) });
    const router = createMemoryRouter([{ element: <Root />, children: [{ path: '/', element: <p>home</p> }, { path: '/customize/:id', element: <p>scene</p> }] }], {
      initialEntries: ['/'],
    });
    render(
      <StrictMode>
        <RouterProvider router={router} />
      </StrictMode>,
    );
    await act(() => router.navigate('/customize/3?style=cold'));
    trackRenderStart(3);

    const views = await Promise.all(beacons.filter(([url]) => url === PAGE_VIEWS_URL).map(([, body]) => blobJson(body)));
    expect(views).toEqual([
      { page: 'home', path: '/', query: '' },
      { page: 'scene-customize', path: '/customize/3', query: '?style=cold' },
    ]);
    for (const view of views) expect(pageView.safeParse(view).success).toBe(true);

    window.dispatchEvent(new Event('pagehide'));
    const sessions = beacons.filter(([url]) => url === SESSIONS_URL);
    expect(sessions).toHaveLength(1);
    expect(sessions[0][1].type).toBe('application/json');
    const record = await blobJson(sessions[0][1]);
    expect(sessionRecord.safeParse(record).success).toBe(true);
    expect(record).toMatchObject({ page_views: 2, scenes_viewed: 1, unique_scenes: [3], session_ended: true });
  });
});
