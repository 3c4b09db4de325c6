import { describe, expect, test } from 'vitest';
import { getScene, scenes } from '#shared/catalogue';
import { DEFAULT_OUTPUT_FORMAT, formatsFor, outputFormatOf, outputFormatProblem, rendersTransparent } from '#shared/output-formats';
import { createJobRequest } from '#shared/schemas';
import { MAX_STRIP_SLOTS, latestFrame, stripFrames } from '#shared/live-frames';
import { averageChunkSeconds, describeQueuePlace, queuePlace, type QueueJob } from '#shared/queue';

const text = getScene(1)!;
const balls = getScene(5)!;

describe('output formats', () => {
  test('when a scene can drop its background, the transparent formats are offered after the default', () => {
    expect(formatsFor(text, 'animation')).toEqual(['mp4', 'webm', 'webm-alpha', 'gif', 'png-zip']);
    expect(formatsFor(text, 'still')).toEqual(['png', 'jpeg', 'png-transparent']);
  });

  test('when a scene cannot drop its background, no transparent format is offered or accepted', () => {
    expect(formatsFor(balls, 'animation')).toEqual(['mp4', 'webm', 'gif', 'png-zip']);
    expect(outputFormatProblem(balls, 'animation', 'webm-alpha')).toMatch(/cannot drop its background/);
    expect(outputFormatProblem(balls, 'still', 'png-transparent')).toMatch(/cannot drop its background/);
  });

  test('when a format does not fit the mode or is unknown, it is refused with a reason', () => {
    expect(outputFormatProblem(text, 'still', 'gif')).toMatch(/for animations/);
    expect(outputFormatProblem(text, 'animation', 'jpeg')).toMatch(/for still images/);
    expect(outputFormatProblem(text, 'animation', 'avi')).toMatch(/Unknown output format/);
    expect(outputFormatProblem(text, 'animation', 'webm-alpha')).toBeNull();
  });

  test('when the catalogue is read, it says which scenes can drop their background', () => {
    expect(scenes.filter((scene) => scene.canDropBackground).map((scene) => scene.slug)).toEqual(['text-animation', 'audio-reactive', 'model-viewer', 'audio-dark-drop']);
  });

  test('when a job has no format, it is the mode default, and only transparent formats render transparent', () => {
    expect(outputFormatOf({ mode: 'animation' })).toBe(DEFAULT_OUTPUT_FORMAT.animation);
    expect(outputFormatOf({ mode: 'still' })).toBe('png');
    expect(rendersTransparent('webm-alpha')).toBe(true);
    expect(rendersTransparent('webm')).toBe(false);
  });

  test('when a job request names a format the scene cannot give, the schema refuses it on outputFormat', () => {
    const request = { sceneId: 5, mode: 'animation', resolutionX: 640, resolutionY: 360, options: '', isTest: true, paymentMethod: 'credits', uploadKey: 'uploads/u/x/a.png', outputFormat: 'webm-alpha' };
    const parsed = createJobRequest.safeParse(request);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toContain('outputFormat');
    expect(createJobRequest.safeParse({ ...request, outputFormat: 'gif' }).success).toBe(true);
  });
});

describe('live preview strip', () => {
  test('when the animation is short, the strip holds every frame', () => {
    expect(stripFrames(5)).toEqual([1, 2, 3, 4, 5]);
  });

  test('when the animation is long, the strip samples it evenly with the first and last frames', () => {
    const strip = stripFrames(300);
    expect(strip).toHaveLength(MAX_STRIP_SLOTS);
    expect(strip[0]).toBe(1);
    expect(strip.at(-1)).toBe(300);
    expect([...strip].sort((a, b) => a - b)).toEqual(strip);
  });

  test('when frames were stored out of order, the latest is the last stored', () => {
    expect(latestFrame([1, 9, 2])).toBe(2);
    expect(latestFrame([])).toBeNull();
  });
});

describe('queue place', () => {
  const job = (jobId: string, status: string, created_at: string, extra: Partial<QueueJob> = {}): QueueJob => ({ jobId, status, created_at, estimatedRenderTimeMinutes: 2, ...extra });

  test('when two queued jobs are older and one job renders, the job is third in line and waits for all of their work', () => {
    const mine = job('m', 'queued', '2026-01-01T00:03:00Z');
    const active = [
      job('r', 'rendering', '2026-01-01T00:00:00Z', { chunksTotal: 4, chunksDone: 2, chunkSecondsDone: 120 }),
      job('a', 'queued', '2026-01-01T00:01:00Z'),
      job('b', 'queued', '2026-01-01T00:02:00Z'),
      job('later', 'queued', '2026-01-01T00:04:00Z'),
      mine,
    ];
    const place = queuePlace(mine, active, { workers: 2, plannedChunkSeconds: 90 }, 2)!;
    expect(place.position).toBe(3);
    expect(place.jobsAhead).toBe(3);
    // rendering: 2 chunks left x 60 s measured; queued: 2 x 2 min estimate; over 2 workers.
    expect(place.waitSeconds).toBe((2 * 60 + 2 * 120) / 2);
    expect(describeQueuePlace(place)).toBe('3rd in line · starts in about 3 min');
  });

  test('when nothing is ahead, the job is next in line with no wait', () => {
    const mine = job('m', 'queued', '2026-01-01T00:00:00Z');
    const place = queuePlace(mine, [mine], { workers: 4, plannedChunkSeconds: 90 }, 0)!;
    expect(place).toMatchObject({ position: 1, jobsAhead: 0, waitSeconds: 0 });
    expect(describeQueuePlace(place)).toBe('Next in line · should start within a minute');
  });

  test('when the job is not queued, it has no place in the line', () => {
    expect(queuePlace(job('m', 'rendering', '2026-01-01T00:00:00Z'), [], { workers: 1, plannedChunkSeconds: 90 }, 0)).toBeNull();
  });

  test('when no chunk has finished yet, the planned chunk length is used', () => {
    expect(averageChunkSeconds([job('a', 'rendering', 'x', { chunksDone: 0 })], 90)).toBe(90);
    expect(averageChunkSeconds([job('a', 'rendering', 'x', { chunksDone: 3, chunkSecondsDone: 30 })], 90)).toBe(10);
  });
});
