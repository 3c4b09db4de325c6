/**
 * A job's finishing step, run once every chunk is done (on the render function, by the environment whose chunk
 * finished last; on Batch, the job that depends on the array of chunks; locally, the pool's task queued after the last
 * chunk): a still split into regions has its regions' final rows joined (render/region-stitch.ts) and delivered; for an
 * animation, the chunks' video segments are joined without re-encoding and the soundtrack muxed once, and the other
 * formats (WebM, GIF, PNG ZIP) stream the stored frames from storage into ffmpeg one at a time. The video goes up as a multipart
 * upload, and frames and segments are deleted once it is stored (a done job cannot be
 * resumed, so nothing needs them any more).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { prepareForTool, RENDER_SETUP_ERROR, RENDER_SETUP_FAILED, toolAccessProblem } from './tool-environment';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { getScene } from '#shared/catalogue';
import { FPS } from '#shared/frames';
import { frameFile, regionFile } from '#shared/render-contract';
import { SEGMENT_DOWNLOADS_AT_ONCE } from '#shared/fast-path';
import { joinRegions } from './region-stitch';
import { renderedResolution } from '#shared/render-policy';
import type { JobRecord, OutputFile } from '#core/jobs/jobs';
import { OUTPUT_FORMATS, outputFormatOf } from '#shared/output-formats';
import { encodeVideoFormat, zipFrames, type FrameSource } from './delivery-formats';
import { renderTasks, taskReason, type TaskOutcome } from '#core/jobs/render-tasks';
import { jobFiles, type JobFiles } from '#core/job-files/job-files';
import { concatSegments, encodeMp4FromStreams, makeThumbnail } from './encode';
import { deliverStill } from './still-delivery';
import { renewEveryHeartbeat } from './task-leases';
import { log } from '#observability/logger';

/** The job's delivery format when it is not the MP4: encoded or zipped from the stored frames and stored. */
async function encodeChosenFormat(job: JobRecord, files: JobFiles, workDir: string, openFrame: FrameSource, audioFile: string | undefined): Promise<OutputFile | undefined> {
  const format = outputFormatOf(job);
  const spec = OUTPUT_FORMATS[format];
  if (format === 'png-zip') {
    const stored = await files.storeStream(spec.fileName, zipFrames(openFrame, job.total_frames, (frame) => frameFile(frame).split('/').pop()!), spec.contentType);
    return { name: spec.fileName, key: stored.key, contentType: spec.contentType, size: stored.size };
  }
  if (format !== 'webm' && format !== 'webm-alpha' && format !== 'gif') return undefined;
  const file = join(workDir, spec.fileName);
  await encodeVideoFormat(format, openFrame, job.total_frames, FPS, file, format === 'gif' ? undefined : audioFile);
  const stored = await files.storeLarge(spec.fileName, file, spec.contentType);
  return { name: spec.fileName, key: stored.key, contentType: spec.contentType, size: stored.size };
}

/** What the finishing step reads of a chunk's record: its place in the plan and the segment it stored. */
type FinishingChunk = { index: number; segment?: string };

/**
 * Every chunk's segment, as its record names it, downloaded in frame order (the bucket is not asked what exists);
 * undefined when a record names none: a chunk done before chunks recorded their segments.
 */
async function fetchSegments(chunks: FinishingChunk[], files: JobFiles, workDir: string): Promise<string[] | undefined> {
  const names = chunks.flatMap((chunk) => (chunk.segment ? [chunk.segment] : []));
  if (chunks.length === 0 || names.length < chunks.length) return undefined;
  await mkdir(join(workDir, 'segments'), { recursive: true });
  const paths = names.map((name) => join(workDir, name));
  await downloadOutputs(files, names, paths);
  return paths;
}

/** The job's stored outputs `names` into `paths` (same order), SEGMENT_DOWNLOADS_AT_ONCE at a time. */
async function downloadOutputs(files: JobFiles, names: string[], paths: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += SEGMENT_DOWNLOADS_AT_ONCE) {
    await Promise.all(names.slice(i, i + SEGMENT_DOWNLOADS_AT_ONCE).map((name, k) => files.download(name, paths[i + k])));
  }
}

/** A still split into regions: the regions' final rows joined, then delivered as an unsplit still is. */
async function finishStill(job: JobRecord, chunks: FinishingChunk[], files: JobFiles, workDir: string): Promise<FinishingOutcome> {
  const paths = chunks.map((chunk) => join(workDir, `region_${chunk.index}.png`));
  await downloadOutputs(files, chunks.map((chunk) => regionFile(chunk.index)), paths);
  const outputDir = join(workDir, 'out');
  const { x, y } = renderedResolution(job);
  await joinRegions(paths, x, y, outputDir);
  if (!(await deliverStill(job, outputDir, async () => true))) return 'stopped';
  await files.deleteUnder('regions/').catch((error) => log.error('Regions not deleted', { jobId: job.jobId, error }));
  return 'done';
}

export type FinishingOutcome = Exclude<TaskOutcome, 'retry'>;

export async function runFinishing(jobId: string, options: { workerId: string }): Promise<FinishingOutcome> {
  const { workerId } = options;
  const task = await renderTasks().startFinishing(jobId, { workerId });
  if (!task) return 'skipped';
  const { job, chunks } = task;
  const fail = (reason: string, errorType?: string) => renderTasks().failFinishing(jobId, { workerId, reason: taskReason(reason), ...(errorType ? { errorType } : {}) });
  // ffmpeg runs as the tools' user: one that cannot reach a job's folder is said before the work.
  const setupProblem = await toolAccessProblem();
  if (setupProblem) {
    log.error(setupProblem, { jobId });
    return fail(RENDER_SETUP_FAILED, RENDER_SETUP_ERROR);
  }
  const unwatch = renewEveryHeartbeat(() => renderTasks().renewFinishing(jobId, { workerId }), { jobId });
  const files = jobFiles(job);
  const workDir = await mkdtemp(join(tmpdir(), `finish-${jobId.slice(0, 8)}-`));
  try {
    if (job.isStillRender) return await finishStill(job, chunks, files, workDir);
    const withAudio = getScene(job.sceneId)?.type === 'sound' && job.inputKey;
    let audioFile: string | undefined;
    if (withAudio) {
      audioFile = join(workDir, `input${extname(job.inputKey!).toLowerCase()}`);
      // The soundtrack the chunks' Blender read (an audio upload is measured when it arrives, not inspected again).
      await files.fetchCheckedInput(audioFile, 'audio');
    }
    const segments = await fetchSegments(chunks, files, workDir);
    // ffmpeg (as the tools' user, in the worker) reads the segments and the soundtrack and writes the video and the other formats here.
    await prepareForTool([workDir]);
    const video = join(workDir, 'final.mp4');
    const openFrame = (frame: number) => files.read(frameFile(frame));
    if (segments) {
      await concatSegments(segments, video, audioFile);
    } else {
      // A job with chunks done before chunks recorded their segments (rendered before segments existed, or resumed
      // across that change): its frames, which stay stored until the job is done, are encoded here, as they were then.
      log.info('Chunks without a recorded segment: the video is encoded from the stored frames', { jobId });
      async function* framesFromStorage() {
        for (let frame = 1; frame <= job.total_frames; frame += 1) yield await openFrame(frame);
      }
      await encodeMp4FromStreams(framesFromStorage(), video, FPS, audioFile);
    }
    const thumbnail = join(workDir, 'thumbnail.jpg');
    await makeThumbnail(video, thumbnail);
    const storedVideo = await files.storeLarge('final.mp4', video, 'video/mp4');
    const storedThumb = await files.store('thumbnail.jpg', thumbnail, 'image/jpeg');
    const outputs: OutputFile[] = [
      { name: 'final.mp4', key: storedVideo.key, contentType: 'video/mp4', size: storedVideo.size },
      { name: 'thumbnail.jpg', key: storedThumb.key, contentType: 'image/jpeg', size: storedThumb.size },
    ];
    // The MP4 plays in every browser, so the job card always has it; the chosen format is one more pass over the frames.
    const chosen = await encodeChosenFormat(job, files, workDir, openFrame, audioFile);
    if (chosen) outputs.push(chosen);
    // The card plays the chosen file when a browser can (WebM, GIF); a ZIP is a download beside the MP4.
    const main = chosen && chosen.contentType !== 'application/zip' ? chosen : outputs[0];
    if (!(await renderTasks().completeJob(jobId, { fileMetadata: outputs, mainOutputPath: main.key, mainOutputType: main.contentType }))) return 'stopped';
    await files.deleteUnder('frames/').catch((error) => log.error('Frames not deleted', { jobId, error }));
    await files.deleteUnder('segments/').catch((error) => log.error('Segments not deleted', { jobId, error }));
    await files.deleteInput().catch((error) => log.error('Input not deleted', { jobId, error }));
    return 'done';
  } catch (error) {
    log.error('Encoding failed', { jobId, error });
    const reason = `The render failed on our side while ${job.isStillRender ? 'finishing the image' : 'encoding the video'}: ${(error as Error)?.message ?? error}`;
    return fail(reason);
  } finally {
    unwatch();
    await rm(workDir, { recursive: true, force: true });
  }
}
