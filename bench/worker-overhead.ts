/**
 * Benchmark: the render worker's overhead over bare Blender.
 *
 * For the same scene and settings it times (1) a job through the whole local
 * system — API call, job record, worker process, Blender, upload of the output,
 * job marked done — and (2) `blender -b` running the same scene script with the
 * same arguments. Prints both wall times and the overhead; the target is under
 * 15 % for a render of about 10 seconds.
 *
 * Both are run several times, alternating which goes first, and the medians are
 * compared, so a busy neighbour on a small machine skews both sides alike.
 *
 *   npx tsx bench/worker-overhead.ts [resolutionX] [resolutionY] [rounds]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startLocalStack } from '../infra/local/stack';
import { ensureVerifiedUser } from '../infra/local/bootstrap';
import { ensureUser } from '../core/users/users';
import { moveCredits } from '../core/credits/credits';
import { getJob } from '../core/jobs/jobs';
import { findBlender, sceneScriptPath, scriptArgsOf } from '../render/blender';
import { getScene } from '../shared/catalogue';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';

const run = promisify(execFile);
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

    // (1) Through the product: from the API call to the job marked done.
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
      return (performance.now() - started) / 1000;
    };

    // (2) Bare Blender on the same scene script and arguments.
    const dir = mkdtempSync(join(tmpdir(), 'bench-'));
    const argsFile = join(dir, 'args.json');
    writeFileSync(argsFile, JSON.stringify(scriptArgsOf({ ...settings, inputFile: null, frameStart: 1, frameEnd: 1, alignment: null, isTest: false, outputDir: dir }, getScene(1)!)));
    const bareOnce = async () => {
      const started = performance.now();
      await run(blender.path, ['-b', '--factory-startup', '-noaudio', '--python', sceneScriptPath(getScene(1)!.slug), '--', argsFile], { maxBuffer: 64 * 1024 * 1024 });
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
    console.log(`bare blender -b:        ${bare.toFixed(2)} s (median of ${bareTimes.map((t) => t.toFixed(1)).join(', ')})`);
    console.log(`job through the worker: ${throughWorker.toFixed(2)} s (median of ${workerTimes.map((t) => t.toFixed(1)).join(', ')})`);
    console.log(`overhead:               ${(((throughWorker - bare) / bare) * 100).toFixed(1)} % (target < 15 % for a ~10 s render)`);
  } finally {
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
