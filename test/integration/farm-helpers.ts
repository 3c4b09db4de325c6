import { randomUUID } from 'node:crypto';
import type { JobRecord } from '../../core/jobs/jobs';

/** A queued job written straight to the table: no worker is launched for it. */
export function queuedJob(overrides: Partial<JobRecord> = {}): JobRecord {
  const now = new Date().toISOString();
  return {
    jobId: randomUUID(),
    userId: randomUUID(),
    userEmail: 'farm@example.com',
    sceneId: 1,
    blendFile: 'text.blend',
    status: 'queued',
    created_at: now,
    lastActive: now,
    lastHeartbeat: now,
    mode: 'animation',
    isStillRender: false,
    isTest: false,
    resolution_x: 1920,
    resolution_y: 1080,
    options: '',
    total_frames: 120,
    uploaded_frames: [],
    totalLogLines: 100,
    loggedLines: 0,
    estimatedPrice: 0,
    estimatedRenderTimeMinutes: 5.8,
    totalBillableTimeMinutes: 5.8,
    estimatedCloudRunCost: 0,
    priceBreakdown: '{}',
    priceCalculationTimestamp: now,
    paymentMethod: 'free',
    paymentStatus: 'free',
    attempts: 1,
    ...overrides,
  };
}
