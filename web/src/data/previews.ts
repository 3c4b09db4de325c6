/**
 * The customise page's live preview: a small picture of the customer's own settings
 * (POST /api/previews, or /api/visitor-previews before signing in), asked for once the
 * customer pauses. Each picture is kept under the request it answers, so settings seen
 * before come back at once without asking the server. A request overtaken by a newer one
 * is cancelled (its query loses its only observer), so a late answer is never shown; the
 * server, which renders one preview per account at a time, answers a request replaced by
 * a newer one of the same account 409 (`conflict`).
 */
import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { PreviewRequest } from '#shared/schemas';
import type { LivePreviewStrip } from '#shared/api-types';
import { ApiError, api } from '../lib/api';
import { useSession } from '../lib/session';
import { queryKeys } from './keys';

/** How long the customer pauses before the settings are previewed. */
export const LIVE_PREVIEW_DEBOUNCE_MS = 300;
/** The quiet note under the catalogue picture when no live preview came back. */
export const LIVE_PREVIEW_UNAVAILABLE = 'Live preview unavailable right now.';
/** Tries of one request the rate limit turned down (each after the wait it asked for). */
const RATE_LIMITED_RETRIES = 2;

export type LivePreviewStatus = 'idle' | 'loading' | 'ready' | 'failed';

export interface LivePreviewState {
  /** The latest picture (a data: URL), or null while there is none to show. */
  image: string | null;
  /** In Animation mode, the latest strip (frames of the clip, in order), or null while there is none to show. */
  strip: LivePreviewStrip['strip'] | null;
  /** idle: nothing to preview; loading: a newer picture is on its way. */
  status: LivePreviewStatus;
  /** Why the last request failed, in the customer's words. */
  error: string | null;
}

/**
 * The live preview of `request` (null while the settings cannot be previewed: no text yet,
 * no stored upload). The scene's preview server is warmed once the page has painted.
 */
export function useLivePreview(sceneId: number, request: PreviewRequest | null): LivePreviewState {
  const signedIn = Boolean(useSession().user);
  useWarmUp(sceneId, signedIn);

  // Compared and kept as text: the form builds a new request object on every render.
  const wanted = request ? JSON.stringify(request) : null;
  const [asked, setAsked] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setAsked(wanted), wanted ? LIVE_PREVIEW_DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [wanted]);

  const query = useQuery({
    queryKey: queryKeys.livePreview(asked, signedIn),
    queryFn: ({ signal }) => api.livePreview(JSON.parse(asked!) as PreviewRequest, signedIn, signal),
    enabled: asked !== null && wanted !== null,
    // The last picture stays on screen while the next one is made.
    placeholderData: keepPreviousData,
    // The same settings make the same picture.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    // A preview that failed waits for the next change; only the rate limit says when to come back.
    retry: (failures, error) => failures < RATE_LIMITED_RETRIES && error instanceof ApiError && error.code === 'rate_limited',
    retryDelay: (_, error) => (error instanceof ApiError ? (error.details.retryAfterSeconds ?? 2) : 2) * 1000,
  });

  if (wanted === null || asked === null) return { image: null, strip: null, status: 'idle', error: null };
  if (query.isError) return { image: null, strip: null, status: 'failed', error: failureNote(query.error) };
  const image = query.data && 'image' in query.data ? query.data.image : null;
  const strip = query.data && 'strip' in query.data ? query.data.strip : null;
  const settled = wanted === asked && !query.isFetching && !query.isPlaceholderData;
  return { image, strip, status: settled && (image || strip) ? 'ready' : 'loading', error: null };
}

/**
 * The server's words when the customer's own file cannot be previewed, or when a newer preview of theirs replaced this
 * one (the account renders one at a time: another window of theirs asked since; this page's own older requests are
 * cancelled before they could be answered so); otherwise a quiet, general note.
 */
function failureNote(error: unknown): string {
  if (!(error instanceof ApiError)) return LIVE_PREVIEW_UNAVAILABLE;
  if (error.code === 'invalid_request' && error.details.field === 'uploadKey') return error.message;
  return error.code === 'conflict' ? error.message : LIVE_PREVIEW_UNAVAILABLE;
}

/**
 * One warm-up per opened page, once the browser is idle after the first paint: it must not
 * compete with the page's own loading. Its failure only means a slower first preview.
 */
function useWarmUp(sceneId: number, signedIn: boolean): void {
  useEffect(() => {
    const warm = () => void api.warmPreviews(sceneId, signedIn).catch(() => {});
    if (typeof window.requestIdleCallback === 'function') {
      const idle = window.requestIdleCallback(warm, { timeout: 2000 });
      return () => window.cancelIdleCallback(idle);
    }
    const timer = setTimeout(warm, 0);
    return () => clearTimeout(timer);
  }, [sceneId, signedIn]);
}
