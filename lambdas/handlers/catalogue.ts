import { scenes, getScene } from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';
import { quoteRequest } from '#shared/schemas';
import type { Quote } from '#shared/api-types';
import { jsonBody, type ApiEvent } from '../lib/http';
import { NotFoundError } from '#core/errors';

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
