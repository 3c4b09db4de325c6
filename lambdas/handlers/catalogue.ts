import { scenes, getScene } from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';
import { quoteRequest } from '#shared/schemas';
import type { Quote, SceneDelivery } from '#shared/api-types';
import { json, jsonBody, pathParam, type ApiEvent, type ApiResult } from '../lib/http';
import { NotFoundError } from '#core/errors';
import { sceneDeliveryBasis } from '#core/jobs/delivery';
import { SCENE_NOT_FOUND } from '#shared/messages';

/** GET /api/scenes: the built-in catalogue (its prices computed by the shared calculator). */
export async function listScenes() {
  return { scenes };
}

/** POST /api/quotes: the server's price and breakdown, from the same function that charges. */
export async function quote(event: ApiEvent): Promise<Quote> {
  const request = jsonBody(event, quoteRequest);
  const scene = getScene(request.sceneId);
  if (!scene) throw new NotFoundError('Scene not found');
  return quoteRender(scene, request);
}

/**
 * How long a browser may keep the answer: the figures change once a day (the recalibration), so a page reopened in
 * these minutes asks no database, and a new day's figures reach the page at most this late.
 */
const SCENE_DELIVERY_MAX_AGE_SECONDS = 300;

/** GET /api/scenes/{sceneId}/delivery: what a new job's promise of the scene is computed from, for the customise page. */
export async function sceneDelivery(event: ApiEvent): Promise<ApiResult> {
  const scene = getScene(pathParam(event, 'sceneId'));
  if (!scene) throw new NotFoundError(SCENE_NOT_FOUND);
  const answer: SceneDelivery = await sceneDeliveryBasis(scene.id);
  return json(200, answer, { 'cache-control': `public, max-age=${SCENE_DELIVERY_MAX_AGE_SECONDS}` });
}
