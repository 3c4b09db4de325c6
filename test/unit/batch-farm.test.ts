import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchClient, TerminateJobCommand } from '@aws-sdk/client-batch';
import { BatchFarm } from '#adapters/batch-farm';

/** Batch's control plane cannot be reached here: the client's send is replaced at that edge. */
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the AWS Batch farm', () => {
  it('when a job is cancelled, each farm job submitted for it is terminated with the reason', async () => {
    const terminated: { jobId?: string; reason?: string }[] = [];
    vi.spyOn(BatchClient.prototype, 'send').mockImplementation(async (command: unknown) => {
      if (!(command instanceof TerminateJobCommand)) throw new Error(`unexpected Batch call ${String(command)}`);
      terminated.push(command.input);
      return {};
    });
    const farm = new BatchFarm({ region: 'us-east-1', jobQueue: 'queue', renderJobDefinition: 'render', finishJobDefinition: 'finish' });
    await farm.cancel({ jobId: 'job-1' }, ['render-batch-id', 'finish-batch-id'], 'abandoned by its owner');
    expect(terminated).toEqual([
      { jobId: 'render-batch-id', reason: 'abandoned by its owner' },
      { jobId: 'finish-batch-id', reason: 'abandoned by its owner' },
    ]);
  });

  it('when the farm is not configured, a submission fails naming the settings and sends nothing', async () => {
    const send = vi.spyOn(BatchClient.prototype, 'send');
    const farm = new BatchFarm({ region: 'us-east-1' });
    await expect(farm.submit({ jobId: 'job-1', userId: 'user-1' }, [0, 1], { finish: true })).rejects.toThrow(/RENDER_JOB_QUEUE, RENDER_JOB_DEFINITION and FINISH_JOB_DEFINITION must be set/);
    expect(send).not.toHaveBeenCalled();
  });
});
