/**
 * What the server's promise of a new job of a scene is computed from besides the render's settings (its concurrency and
 * production's measured figures, GET /api/scenes/{sceneId}/delivery), so the customise page's "ready in about N s" is
 * the promise the job keeps. Until it is read, or when it cannot be, the page shows the bench's promise: the read never
 * holds the page up.
 */
import { useQuery } from '@tanstack/react-query';
import type { SceneDelivery } from '#shared/api-types';
import { api } from '../lib/api';
import { queryKeys } from './keys';

/** The figures change once a day (the recalibration): one read per scene and visit is enough. */
const SCENE_DELIVERY_FRESH_MS = 5 * 60_000;

/** The scene's delivery basis, or undefined while it loads or after the read failed (the bench's figures stand in). */
export function useSceneDelivery(sceneId: number): SceneDelivery | undefined {
  const query = useQuery({
    queryKey: queryKeys.sceneDelivery(sceneId),
    queryFn: () => api.sceneDelivery(sceneId),
    staleTime: SCENE_DELIVERY_FRESH_MS,
    refetchOnWindowFocus: false,
  });
  return query.data;
}
