/**
 * Benchmark: the render worker's overhead over bare Blender.
 *
 * For the same scene and settings it times (1) a job through the whole local
 * system — API call, job record, worker process, Blender, upload of the output,
 * job marked done — and (2) the same render by the worker's own Blender run
 * (render/blender.ts's runScene: Blender and the denoiser answering its frame, as in
 * a chunk) with no job around it. Prints both wall times and the overhead (the target
 * is under 15 % for a render of about 10 seconds), and where a chunk's time went,
 * step by step (the worker's chunk timings: claim and credentials, setup with Blender's
 * version and the tools' access check, input, Blender's start and scene build, render,
 * store, finish).
 *
 * Both are run several times, alternating which goes first, and the medians are
 * compared, so a busy neighbour on a small machine skews both sides alike.
 *
 *   npx tsx bench/worker-overhead.ts [resolutionX] [resolutionY] [rounds]
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHUNK_STEPS } from '#observability/metrics';
import { startLocalStack } from '#infra/local/stack';
import { ensureVerifiedUser } from '#infra/local/bootstrap';
import { ensureUser } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';
import { getJob } from '#core/jobs/jobs';
import { findBlender, runScene } from '#render/blender';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';

const [resolutionX, resolutionY, rounds] = [Number(process.argv[2] ?? 480), Number(process.argv[3] ?? 270), Number(process.argv[4] ?? 3)];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const settings = { sceneId: 1, mode: 'still' as const, resolutionX, resolutionY, customText: 'Benchmark', options: 'backgroundStyle:hot;textColor:#ffcc00' };

async function main() {
  const blender = await findBlender();
  if (!blender) throw new Error('Blender is needed for this benchmark');
  const stack = await startLocalStack();
  try {
    const email = 'bench@example.com';
    const userId = await ensureVerifiedUser(stack.env.COGNITO_ENDPOINT, stack.env.USER_POOL_ID, email, 'Bench-password-1');
    await ensureUser(userId, email);
    await moveCredits({ userId, amount: 1000, type: 'bonus' });
    const auth = await new CognitoIdentityProviderClient({ endpoint: stack.env.COGNITO_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }).send(
      new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: stack.env.USER_POOL_CLIENT_ID, AuthParameters: { USERNAME: email, PASSWORD: 'Bench-password-1' } }),
    );
    const token = auth.AuthenticationResult!.IdToken!;

    // (1) Through the product: from the API call to the job marked done; the chunk's steps from its worker's log.
    const steps: Record<string, number[]> = {};
    const throughWorkerOnce = async () => {
      const started = performance.now();
      const response = await fetch(`${stack.apiUrl}/api/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...settings, isTest: false, paymentMethod: 'credits' }),
      });
      const { job } = (await response.json()) as { job: { jobId: string } };
      for (;;) {
        const current = await getJob(job.jobId);
        if (current?.status === 'failed') throw new Error(`job failed: ${current.crashReason}`);
        if (current?.status === 'done') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const seconds = (performance.now() - started) / 1000;
      const timings = readFileSync(join(stack.dataDir, 'jobs', job.jobId, 'chunk-0.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"chunk_timings"'))
        .map((line) => JSON.parse(line) as { steps: Record<string, number> });
      for (const [step, ms] of Object.entries(timings.at(-1)?.steps ?? {})) (steps[step] ??= []).push(ms / 1000);
      return seconds;
    };

    // (2) The worker's own Blender run of the same render, with nothing of the job system around it.
    const bareOnce = async () => {
      const outputDir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
      const started = performance.now();
      await runScene({ ...settings, isTest: false, outputDir });
      return (performance.now() - started) / 1000;
    };

    const workerTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        workerTimes.push(await throughWorkerOnce());
        bareTimes.push(await bareOnce());
      } else {
        bareTimes.push(await bareOnce());
        workerTimes.push(await throughWorkerOnce());
      }
    }
    const bare = median(bareTimes);
    const throughWorker = median(workerTimes);

    console.log(`scene 1 still ${resolutionX}x${resolutionY}, Blender ${blender.version}`);
    console.log(`the worker's Blender run alone:  ${bare.toFixed(2)} s (median of ${bareTimes.map((t) => t.toFixed(1)).join(', ')})`);
    console.log(`job through the worker:          ${throughWorker.toFixed(2)} s (median of ${workerTimes.map((t) => t.toFixed(1)).join(', ')})`);
    console.log(`overhead:                        ${(((throughWorker - bare) / bare) * 100).toFixed(1)} % (target < 15 % for a ~10 s render)`);
    console.log("the chunk's steps (median s):   " + CHUNK_STEPS.filter((step) => steps[step]).map((step) => `${step} ${median(steps[step]).toFixed(2)}`).join(', '));
  } finally {
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
