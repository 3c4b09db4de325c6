/**
 * A still's delivery: the rendered image stored in the job's format with its preview, and the job completed. The
 * chunk that renders a whole still delivers it (render/chunk-runner.ts); a still split into regions is delivered by
 * its finishing step once the regions are joined (render/finish-step.ts).
 */
import { join } from 'node:path';
import { STILL_FILE } from '#shared/render-contract';
import { OUTPUT_FORMATS, outputFormatOf } from '#shared/output-formats';
import type { JobRecord } from '#core/jobs/jobs';
import { renderTasks } from '#core/jobs/render-tasks';
import { jobFiles } from '#core/job-files/job-files';
import { log } from '#observability/logger';
import { stillToJpeg } from './delivery-formats';
import { storeFramePreview } from './frame-previews';

/**
 * Stores a rendered still (outputDir/still.png) in the job's format with its preview and,
 * once `stored` agrees (the chunk still this worker's), completes the job; false when the
 * job stopped rendering meanwhile.
 */
export async function deliverStill(job: JobRecord, outputDir: string, stored: () => Promise<boolean>): Promise<boolean> {
  const format = OUTPUT_FORMATS[outputFormatOf(job)];
  const still = join(outputDir, STILL_FILE);
  const file = format.contentType === 'image/jpeg' ? join(outputDir, format.fileName) : still;
  if (file !== still) await stillToJpeg(still, file);
  const files = jobFiles(job);
  // The preview goes up beside the image, not after it.
  const [output] = await Promise.all([files.store(format.fileName, file, format.contentType), storeFramePreview(files, job.jobId, 1, outputDir)]);
  if (!(await stored())) return false;
  const done = await renderTasks().completeJob(job.jobId, {
    fileMetadata: [{ name: format.fileName, key: output.key, contentType: format.contentType, size: output.size }],
    mainOutputPath: output.key,
    mainOutputType: format.contentType,
  });
  if (!done) return false;
  await files.deleteInput().catch((error) => log.error('Input not deleted', { jobId: job.jobId, error }));
  return true;
}
