import { createFunction } from '../lib/http';
import { abandonJob, jobPayment, createRenderJob, createUpload, getJobDetail, listJobFiles, listJobs, mainOutput, reportProblem, resumeJob, jobFrames, jobQueuePlace } from '../handlers/jobs';
import { customerPreview } from '../handlers/previews';
import { mailedPicture } from '../handlers/mail-links';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('jobs', {
  'POST /api/uploads': createUpload,
  'POST /api/previews': customerPreview,
  'POST /api/jobs': createRenderJob,
  'GET /api/jobs': listJobs,
  'GET /api/jobs/{jobId}': getJobDetail,
  'POST /api/jobs/{jobId}/abandon': abandonJob,
  'POST /api/jobs/{jobId}/resume': resumeJob,
  'GET /api/jobs/{jobId}/files': listJobFiles,
  'GET /api/jobs/{jobId}/main-output': mainOutput,
  'POST /api/jobs/{jobId}/reports': reportProblem,
  'GET /api/jobs/{jobId}/payment': jobPayment,
  'GET /api/jobs/{jobId}/frames': jobFrames,
  'GET /api/jobs/{jobId}/queue': jobQueuePlace,
  'GET /api/jobs/{jobId}/picture': mailedPicture,
});
