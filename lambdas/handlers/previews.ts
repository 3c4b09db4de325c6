import { previewRequest, previewWarmUp } from '#shared/schemas';
import { livePreview, warmPreviews, type PreviewAsker } from '#core/previews/previews';
import { z } from 'zod';
import { caller, json, jsonBody, validate, type ApiEvent } from '../lib/http';
import { anonymousClientKey } from './analytics';

/** A warm-up ({ sceneId, warmUp: true }: 202) or a preview of the settings (200, the picture). */
async function answer(asker: PreviewAsker, event: ApiEvent) {
  const body = jsonBody(event, z.unknown());
  if (body && typeof body === 'object' && 'warmUp' in body) {
    const { sceneId } = validate(previewWarmUp, body);
    await warmPreviews(asker, sceneId);
    return json(202, { warm: true });
  }
  return livePreview(asker, validate(previewRequest, body), callerGoneOf(event));
}

/** Set by the local API server when the client closes its connection before the answer; API Gateway has no such signal. */
const callerGoneOf = (event: ApiEvent) => (event as { callerGone?: AbortSignal }).callerGone;

/** POST /api/previews (a signed-in customer) and POST /api/v1/previews (an API key's owner). */
export const customerPreview = (event: ApiEvent) => answer({ userId: caller(event).userId }, event);

/** POST /api/visitor-previews: a visitor not signed in (no uploads), counted by their address, salted and hashed. */
export const visitorPreview = async (event: ApiEvent) => answer({ visitor: await anonymousClientKey(event, new Date(), false) }, event);
