import { describe, expect, it } from 'vitest';
import { createJob, getJob, updateJobAndRead } from '#core/jobs/jobs';
import { queuedJob } from './farm-helpers';
import { storedJobOnce } from './helpers';
import { RENDER_STALLED, sweepStaleJobs } from '#core/jobs/stale-sweep';
import { claimChunk, claimFinishing, expireChunkLease, finishChunk, listChunksOfJob, planOrResumeChunks, releaseChunk, CHUNK_LEASE_MS, CHUNK_MAX_ATTEMPTS, CHUNK_MAX_LOSSES } from '#core/jobs/chunks';
import { forceJobStatus } from './job-fixtures';

describe('a job as a plan of chunks', () => {
  it('when a Full-HD animation is queued, it is split into chunks of whole frames stored under the job', async () => {
    const job = queuedJob();
    await createJob(job);
    const pending = await planOrResumeChunks(job);
    const chunks = await listChunksOfJob(job.jobId);
    expect(chunks).toHaveLength(pending.length);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThanOrEqual(100);
    expect(chunks.every((c) => c.status === 'pending' && c.attempts === 0)).toBe(true);
    expect(chunks.flatMap((c) => Array.from({ length: c.frameEnd - c.frameStart + 1 }, (_, i) => c.frameStart + i))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(await getJob(job.jobId)).toMatchObject({ chunksTotal: chunks.length, chunksDone: 0, chunksRunning: 0, frameRenderSeconds: {} });
  });

  it('when a still is queued, it is one chunk of frame 1', async () => {
    const job = queuedJob({ mode: 'still', isStillRender: true, total_frames: 1 });
    await createJob(job);
    await planOrResumeChunks(job);
    expect((await listChunksOfJob(job.jobId)).map((c) => [c.index, c.frameStart, c.frameEnd])).toEqual([[0, 1, 1]]);
  });

  it('when two workers claim the same chunk at once, exactly one of them gets it', async () => {
    const job = queuedJob();
    await createJob(job);
    await planOrResumeChunks(job);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => claimChunk(job.jobId, 0, `worker-${i}`)));
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
    expect(results.filter((r) => !r.claimed).every((r) => !r.claimed && r.reason === 'taken')).toBe(true);
    const [chunk] = await listChunksOfJob(job.jobId);
    expect(chunk).toMatchObject({ status: 'rendering', attempts: 1 });
    expect(await getJob(job.jobId)).toMatchObject({ status: 'rendering', chunksRunning: 1 });
  });

  it("when workers are lost, their chunk is claimed again after the lease without using an attempt, up to its own larger bound, then it is the file's failure", async () => {
    const job = queuedJob();
    await createJob(job);
    await planOrResumeChunks(job);
    let now = Date.now();
    expect((await claimChunk(job.jobId, 1, 'first', new Date(now))).claimed).toBe(true);
    expect((await claimChunk(job.jobId, 1, 'second', new Date(now + 1000))).claimed).toBe(false);
    for (let loss = 1; loss < CHUNK_MAX_LOSSES; loss += 1) {
      now += CHUNK_LEASE_MS + 1000;
      const claim = await claimChunk(job.jobId, 1, `worker-${loss}`, new Date(now));
      expect(claim.claimed && [claim.chunk.attempts, claim.chunk.losses]).toEqual([1, loss]);
    }
    now += CHUNK_LEASE_MS + 1000;
    const last = await claimChunk(job.jobId, 1, 'too-late', new Date(now));
    expect(last).toMatchObject({ claimed: false, reason: 'exhausted', cause: 'input' });
    // A lost worker's chunk stays counted once as running.
    expect((await getJob(job.jobId))!.chunksRunning).toBe(1);
  });

  it("when a chunk's worker is killed from outside, the chunk does not use an attempt; when its scene errors, it does", async () => {
    const job = queuedJob();
    await createJob(job);
    await planOrResumeChunks(job);
    await claimChunk(job.jobId, 0, 'killed');
    // The pool saw the worker die by a signal: the lease ends now and the next worker takes the chunk at once.
    expect(await expireChunkLease(job.jobId, 0, 'killed')).toBe(true);
    const retaken = await claimChunk(job.jobId, 0, 'next');
    expect(retaken.claimed && [retaken.chunk.attempts, retaken.chunk.losses]).toEqual([1, 1]);
    // Stopped by a signal (pool shutdown, Spot reclaim): the attempt is given back.
    expect(await releaseChunk(job.jobId, 0, 'next', 'the worker was stopped', { retry: true, lostToInfrastructure: true })).toBe('pending');
    expect((await listChunksOfJob(job.jobId))[0]).toMatchObject({ attempts: 0, losses: 2 });
    for (let attempt = 1; attempt <= CHUNK_MAX_ATTEMPTS; attempt += 1) {
      const claim = await claimChunk(job.jobId, 0, `render-${attempt}`);
      expect(claim.claimed && claim.chunk.attempts).toBe(attempt);
      // Blender's own error: an attempt used; after the last one the chunk has failed.
      const next = await releaseChunk(job.jobId, 0, `render-${attempt}`, 'Blender quit with an error', { retry: true });
      expect(next).toBe(attempt < CHUNK_MAX_ATTEMPTS ? 'pending' : 'failed');
    }
  });

  it('when the job is abandoned, its chunks can no longer be claimed', async () => {
    const job = queuedJob();
    await createJob(job);
    await planOrResumeChunks(job);
    await updateJobAndRead(job.jobId, { transition: 'abandon' });
    expect(await claimChunk(job.jobId, 0, 'w')).toMatchObject({ claimed: false, reason: 'job-inactive' });
    expect((await listChunksOfJob(job.jobId))[0].status).toBe('pending');
  });

  it('when a chunk of 400 frames is finished, it is marked done with every frame\'s time (its update stays under DynamoDB\'s expression limit)', async () => {
    const job = queuedJob({ total_frames: 400 });
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 1_000_000, maxChunks: 1 });
    const [chunk] = await listChunksOfJob(job.jobId);
    expect(chunk).toMatchObject({ frameStart: 1, frameEnd: 400 });
    await claimChunk(job.jobId, 0, 'holder');
    const times = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [String(i + 1), 1.25]));
    expect(await finishChunk(job.jobId, 0, 'holder', times)).toBe(true);
    const done = (await getJob(job.jobId))!;
    expect(done).toMatchObject({ chunksDone: 1, chunkFramesDone: 400, chunkSecondsDone: 500 });
    expect(Object.keys(done.frameRenderSeconds!)).toHaveLength(400);
  });

  it('when a chunk is finished, the job counts its frames and their render times, and only its holder can finish it', async () => {
    const job = queuedJob({ resolution_x: 320, resolution_y: 180, total_frames: 8 });
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 1, maxChunks: 4 });
    const [chunk] = await listChunksOfJob(job.jobId);
    expect(chunk).toMatchObject({ frameStart: 1, frameEnd: 2 });
    await claimChunk(job.jobId, 0, 'holder');
    expect(await finishChunk(job.jobId, 0, 'intruder', { '1': 1, '2': 1 })).toBe(false);
    expect(await finishChunk(job.jobId, 0, 'holder', { '1': 2.5, '2': 1.5 })).toBe(true);
    expect(await getJob(job.jobId)).toMatchObject({ chunksDone: 1, chunksRunning: 0, chunkSecondsDone: 4, chunkFramesDone: 2, frameRenderSeconds: { '1': 2.5, '2': 1.5 } });
    expect(await claimChunk(job.jobId, 0, 'again')).toMatchObject({ claimed: false, reason: 'done' });
    expect(await claimFinishing(job.jobId, 'encoder'), 'chunks are still missing').toBe(false);
  });

  it('when a failed job is resumed, only its unfinished chunks are pending again, with fresh attempts', async () => {
    const job = queuedJob({ resolution_x: 320, resolution_y: 180, total_frames: 6 });
    await createJob(job);
    await planOrResumeChunks(job, { targetChunkSeconds: 1, maxChunks: 3 });
    await claimChunk(job.jobId, 0, 'a');
    await finishChunk(job.jobId, 0, 'a', { '1': 1, '2': 1 });
    await claimChunk(job.jobId, 1, 'b');
    expect(await releaseChunk(job.jobId, 1, 'b', 'boom', { retry: false })).toBe('failed');
    await updateJobAndRead(job.jobId, { transition: 'fail' });
    await forceJobStatus(job.jobId, 'queued', { from: ['failed'] });
    const pending = await planOrResumeChunks((await getJob(job.jobId))!);
    expect(pending.map((c) => c.index)).toEqual([1, 2]);
    const chunks = await listChunksOfJob(job.jobId);
    expect(chunks.map((c) => [c.status, c.attempts])).toEqual([['done', 1], ['pending', 0], ['pending', 0]]);
    expect(await getJob(job.jobId)).toMatchObject({ chunksTotal: 3, chunksDone: 1, chunkFramesDone: 2, chunksRunning: 0 });
  });

  it('when every chunk is done, exactly one worker claims the finishing step', async () => {
    const job = queuedJob({ mode: 'animation', total_frames: 2, resolution_x: 64, resolution_y: 64 });
    await createJob(job);
    await planOrResumeChunks(job);
    await claimChunk(job.jobId, 0, 'w');
    await finishChunk(job.jobId, 0, 'w', { '1': 1, '2': 1 });
    const claims = await Promise.all(['e1', 'e2', 'e3'].map((w) => claimFinishing(job.jobId, w)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('when workers keep sending heartbeats but no frame is stored for far longer than a frame takes, the sweep fails the job; a job whose chunks only wait is left alone', async () => {
    const now = new Date();
    const longAgo = new Date(now.getTime() - 3 * 3600_000).toISOString();
    const stuck = queuedJob({ status: 'rendering', resolution_x: 64, resolution_y: 64, total_frames: 4, lastHeartbeat: now.toISOString(), lastRenderActivity: longAgo, startTime: longAgo });
    const waiting = queuedJob({ status: 'rendering', resolution_x: 64, resolution_y: 64, total_frames: 4, lastHeartbeat: now.toISOString(), lastRenderActivity: longAgo, startTime: longAgo });
    for (const job of [stuck, waiting]) {
      await createJob(job);
      await planOrResumeChunks(job);
    }
    await claimChunk(stuck.jobId, 0, 'stuck-worker', new Date(now.getTime() - 3 * 3600_000));
    await updateJobAndRead(stuck.jobId, { set: { lastHeartbeat: now.toISOString() } });
    const failed = await sweepStaleJobs(now);
    expect(failed).toContain(stuck.jobId);
    expect(failed).not.toContain(waiting.jobId);
    expect(await storedJobOnce(stuck.jobId, (job) => job.automaticErrorReported === true)).toMatchObject({ status: 'failed', crashReason: RENDER_STALLED, automaticErrorType: 'STALLED_RENDER' });
    expect((await getJob(waiting.jobId))!.status).toBe('rendering');
  });
});
