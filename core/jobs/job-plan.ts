/**
 * A job's plan on this deployment: shared/job-plan.ts' pure planner, given the deployment's farm from its settings and,
 * for the promise, the scene's chunks measured in production. A new job is planned here once, at its creation; launch
 * carries the stored plan out.
 */
import { planJob, type JobPlan, type RenderDeployment } from '#shared/job-plan';
import type { PlanInput } from '#shared/render-plan';
import { getConfig } from '../config';
import { sceneDeliveryBasis } from './delivery';

/** The plan of a new job, promised as the customise page promised it (the same figures, read by sceneDeliveryBasis). */
export async function planNewJob(input: PlanInput): Promise<JobPlan> {
  const { figures } = await sceneDeliveryBasis(input.sceneId);
  return planJob(input, renderDeployment(), figures);
}

/** This deployment's farm, as its settings name it. */
export function renderDeployment(): RenderDeployment {
  const config = getConfig();
  return {
    renderMode: config.RENDER_MODE,
    hasRenderFunction: Boolean(config.RENDER_FUNCTION_NAME),
    functionConcurrency: config.RENDER_FUNCTION_CONCURRENCY,
    ...(config.RENDER_FUNCTION_STORAGE_MB !== undefined ? { functionStorageMb: config.RENDER_FUNCTION_STORAGE_MB } : {}),
  };
}
