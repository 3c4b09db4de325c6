import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ensureTable } from '#infra/local/bootstrap';
import { createJob, listActiveJobs, type JobRecord } from '#core/jobs/jobs';
import { farmLoad, queuePlaceOfJob } from '#core/jobs/queue';
import { queuePlace } from '#shared/queue';
import { resetClients, composeServer } from '#composition/server';
import { envSettings } from '../unit/env-settings';
import { queuedJob } from './farm-helpers';

// A table of its own, so no other test's jobs join the line while the places are compared.
const settings = envSettings({ TABLE_NAME: `queue-place-${randomUUID().slice(0, 8)}` });
const jobs: JobRecord[] = [];

beforeAll(async () => {
  settings.apply();
  resetClients();
  composeServer();
  await ensureTable(inject('stackEnv').DYNAMODB_ENDPOINT, process.env.TABLE_NAME!);
  const start = Date.parse('2026-11-01T10:00:00Z');
  for (let i = 0; i < 24; i++) {
    const created = new Date(start + i * 60_000).toISOString();
    // Every fourth job is rendering, with chunks done and running; the rest wait. The frame lists are what a poll must not read.
    const rendering = i % 4 === 0;
    const job = queuedJob({
      created_at: created,
      lastHeartbeat: new Date(start + (30 - i) * 60_000).toISOString(),
      estimatedRenderTimeMinutes: 1 + i,
      uploaded_frames: Array.from({ length: 200 }, (_, f) => f + 1),
      ...(rendering ? { status: 'rendering' as const, chunksTotal: 10, chunksDone: i % 7, chunkSecondsDone: (i % 7) * 40, chunksRunning: 2 } : {}),
    });
    await createJob(job);
    jobs.push(job);
  }
}, 60_000);

afterAll(() => {
  settings.restore();
  resetClients();
  composeServer();
});

describe('a queued job\'s place in line', () => {
  it('when it is read with only the queue\'s attributes, every queued job gets the same place and wait as from the whole items', async () => {
    const active = await listActiveJobs();
    expect(active).toHaveLength(jobs.length);
    for (const job of jobs.filter((j) => j.status === 'queued')) {
      const chunksRunning = active.filter((other) => other.jobId !== job.jobId).reduce((sum, other) => sum + (other.chunksRunning ?? 0), 0);
      expect(await queuePlaceOfJob(job)).toEqual(queuePlace(job, active, farmLoad(), chunksRunning));
    }
  });

  it('when the line is longer than the read limit, a poll reads no more than the limit, and the place is a lower bound', async () => {
    const last = jobs.filter((j) => j.status === 'queued').at(-1)!;
    const full = (await queuePlaceOfJob(last))!;
    const bounded = (await queuePlaceOfJob(last, 5))!;
    expect(bounded.jobsAhead).toBeLessThanOrEqual(5);
    expect(bounded.position).toBeLessThanOrEqual(full.position);
    expect(bounded.waitSeconds).toBeLessThanOrEqual(full.waitSeconds);
    expect(full.position).toBe(jobs.filter((j) => j.status === 'queued').length);
  });

  it('when a job is not queued, it has no place', async () => {
    expect(await queuePlaceOfJob(jobs[0])).toBeNull();
  });
});
