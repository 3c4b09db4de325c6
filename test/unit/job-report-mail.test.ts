import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeServer, resetClients } from '#composition/server';
import type { JobRecord } from '#core/jobs/jobs';
import { sendJobReport } from '#core/jobs/reports';
import { envSettings } from './env-settings';

const mailDir = mkdtempSync(join(tmpdir(), 'report-mail-'));
const settings: Record<string, string> = {
  TABLE_NAME: 'unused',
  UPLOADS_BUCKET: 'unused',
  OUTPUTS_BUCKET: 'unused',
  USER_POOL_ID: 'unused',
  USER_POOL_CLIENT_ID: 'unused',
  SITE_URL: 'http://localhost:5173',
  MAIL_MODE: 'local',
  MAIL_DIR: mailDir,
};
const environment = envSettings(settings);

beforeAll(() => {
  environment.apply();
  resetClients();
  composeServer();
});

afterAll(() => {
  environment.restore();
  resetClients();
  rmSync(mailDir, { recursive: true, force: true });
});

describe('the time-accuracy report e-mail', () => {
  it('when the estimate and the ratio carry float noise, it prints them rounded to two decimals', async () => {
    const job = {
      jobId: 'job-1',
      userId: 'u1',
      userEmail: 'demo@example.com',
      sceneId: 1,
      isStillRender: false,
      resolution_x: 1920,
      resolution_y: 1080,
      estimatedRenderTimeMinutes: 0.710895547686282,
      actualRenderTimeMinutes: 2.3333333333333335,
      timeAccuracy: 3.2822265625000004,
      options: 'backgroundStyle:cold',
      total_frames: 120,
      fileDuration: 4.0000000001,
    } as JobRecord;
    await sendJobReport(job, 'time_accuracy', 'The render took longer than estimated.');
    const [file] = readdirSync(mailDir);
    const mail = readFileSync(join(mailDir, file), 'utf8');
    expect(mail).toMatch(/^estimated_minutes: 0\.71\r?$/m);
    expect(mail).toMatch(/^actual_minutes: 2\.33\r?$/m);
    expect(mail).toMatch(/^ratio: 3\.28\r?$/m);
    expect(mail).toMatch(/^file_duration: 4\r?$/m);
    expect(mail).not.toMatch(/\d\.\d{3,}/);
  });
});
