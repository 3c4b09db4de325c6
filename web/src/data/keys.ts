/** Every cache key in one place, so a mutation names exactly what it changes. */
export const queryKeys = {
  jobs: ['jobs'] as const,
  jobOutputs: (jobId: string) => ['jobs', jobId, 'outputs'] as const,
  jobFrames: (jobId: string) => ['jobs', jobId, 'frames'] as const,
  jobQueue: (jobId: string) => ['jobs', jobId, 'queue'] as const,
  favorites: ['favorites'] as const,
  sceneDelivery: (sceneId: number) => ['scenes', sceneId, 'delivery'] as const,
  /** A live preview, by the request it answers (as JSON) and the route it went by. */
  livePreview: (request: string | null, signedIn: boolean) => ['previews', request, signedIn] as const,
  creditHistory: (limit: number) => ['credits', 'history', limit] as const,
  analyticsOverview: (days: number) => ['admin', 'analytics', days] as const,
  clientAnalytics: (days: number) => ['admin', 'client-analytics', days] as const,
};
