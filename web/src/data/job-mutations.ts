/**
 * What a user does to a job: create it, pay for it, abandon, resume, report a problem.
 * Each mutation puts the server's answer into the cached list at once and then marks
 * the list stale, so every page showing it reads the server's view again.
 */
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { JobView } from '#shared/api-types';
import type { CreateJobRequest } from '#shared/schemas';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import { queryKeys } from './keys';

function jobChanged(client: QueryClient, updated: JobView): Promise<void> {
  client.setQueryData<JobView[]>(queryKeys.jobs, (jobs) => jobs?.map((job) => (job.jobId === updated.jobId ? updated : job)));
  return client.invalidateQueries({ queryKey: queryKeys.jobs });
}

export function useAbandonJob() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (job: Pick<JobView, 'jobId'>) => (await api.abandonJob(job.jobId)).job,
    onSuccess: (updated) => jobChanged(client, updated),
  });
}

export function useResumeJob() {
  const client = useQueryClient();
  const { refreshProfile } = useSession();
  return useMutation({
    mutationFn: async (job: Pick<JobView, 'jobId'>) => (await api.resumeJob(job.jobId)).job,
    onSuccess: async (updated) => {
      void refreshProfile();
      await jobChanged(client, updated);
    },
  });
}

/** POST /api/jobs with the submission's idempotency key; the list and the balance are read again. */
export function useCreateJob() {
  const client = useQueryClient();
  const { refreshProfile } = useSession();
  return useMutation({
    mutationFn: ({ request, idempotencyKey }: { request: CreateJobRequest; idempotencyKey: string }) => api.createJob(request, idempotencyKey),
    onSuccess: () => {
      void refreshProfile();
      return client.invalidateQueries({ queryKey: queryKeys.jobs });
    },
  });
}

/** The payment ticket of a job awaiting payment (its card step reopened). */
export function useJobPaymentTicket() {
  return useMutation({ mutationFn: (job: Pick<JobView, 'jobId'>) => api.jobPayment(job.jobId) });
}

/** A card payment confirmed (local mode): the jobs and the balance it pays for are read again. */
export function useConfirmLocalPayment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Parameters<typeof api.confirmLocalPayment>[0]) => api.confirmLocalPayment(body),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.jobs }),
  });
}

export function useReportProblem() {
  return useMutation({ mutationFn: ({ job, description }: { job: Pick<JobView, 'jobId'>; description: string }) => api.reportProblem(job.jobId, description) });
}
