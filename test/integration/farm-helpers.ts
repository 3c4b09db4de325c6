import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobRecord } from '#core/jobs/jobs';

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

/**
 * A Blender that records which frames it was asked for (one JSON line per run in
 * BLENDER_CALLS_LOG) and then runs the real one. With BLENDER_FAIL_FRAME set, a run
 * asked for that frame crashes instead, as a broken machine would. With BLENDER_HANG
 * set, a run records its frames and then renders nothing until it is stopped.
 */
/**
 * The file a recording Blender appends to. Workers running at once run their tools as different users
 * (a uid per pool slot), so it is writable by each; it is made here, owned by the test's user, because
 * the pool sweeps what a slot's user owns in the shared temporary folders when its worker exits.
 */
export function callsLog(path: string): string {
  writeFileSync(path, '');
  chmodSync(path, 0o666);
  return path;
}

export function recordingBlender(dir: string, realBlender: string): string {
  const file = join(dir, 'blender');
  writeFileSync(
    file,
    `#!${process.execPath}
const { appendFileSync, readFileSync } = require('node:fs');
const { spawn } = require('node:child_process');
const args = process.argv.slice(2);
const last = args[args.length - 1] ?? '';
if (last.endsWith('.json')) {
  const { frames, mode } = JSON.parse(readFileSync(last, 'utf8'));
  // The log is made by callsLog, so this only appends (whichever slot's user runs this).
  appendFileSync(process.env.BLENDER_CALLS_LOG, JSON.stringify({ frames: frames ?? null, mode }) + '\\n');
  if (process.env.BLENDER_FAIL_FRAME && (frames ?? []).includes(Number(process.env.BLENDER_FAIL_FRAME))) process.exit(1);
}
if (process.env.BLENDER_HANG && last.endsWith('.json')) {
  setInterval(() => {}, 1000);
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(1));
} else {
  // fd 3 is the worker's control channel (render/blender.ts): the real Blender gets it too.
  const child = spawn(${JSON.stringify(realBlender)}, args, { stdio: ['inherit', 'inherit', 'inherit', 'inherit'] });
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 1));
}
`,
  );
  chmodSync(file, 0o755);
  // Run as root, the worker starts Blender as the tools' own user (render/tool-environment.ts): it must reach this wrapper and append its log here.
  chmodSync(dir, 0o1777);
  return file;
}

export function blenderCalls(log: string): { frames: number[] | null; mode: string }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
}
