/**
 * "ready in about N s": the promise the job will keep, from the scene's delivery basis once the server's figures are
 * read (the bench's until then). Computed where it is shown, so the figures arriving re-render this text alone, not
 * the whole page.
 */
import type { Scene } from '#shared/catalogue';
import { formatReadyIn } from '#shared/fast-path';
import { useSceneDelivery } from '../data/scene-delivery';
import { promisedSecondsFor, type FormState } from './form-state';

export function ReadyIn({ scene, state }: { scene: Scene; state: FormState }) {
  const delivery = useSceneDelivery(scene.id);
  return <>{formatReadyIn(promisedSecondsFor(scene, state, delivery))}</>;
}
