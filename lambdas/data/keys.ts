/**
 * Key builders for every entity in the one table. Only the entity modules in
 * lambdas/data/ import this; handlers call named access patterns instead.
 */
export const keys = {
  user: (userId: string) => ({ PK: `USER#${userId}`, SK: 'PROFILE' }),
  userDirectory: (createdAt: string, userId: string) => ({ GSI1PK: 'USERS', GSI1SK: `${createdAt}#${userId}` }),
  ledgerPrefix: 'CREDIT#',
  ledgerEntry: (userId: string, timestamp: string, entryId: string) => ({ PK: `USER#${userId}`, SK: `CREDIT#${timestamp}#${entryId}` }),
  favoritePrefix: 'FAV#',
  favorite: (userId: string, sceneId: number) => ({ PK: `USER#${userId}`, SK: `FAV#${sceneId}` }),
  job: (jobId: string) => ({ PK: `JOB#${jobId}`, SK: 'META' }),
  jobsOfUser: (userId: string) => `USER#${userId}#JOBS`,
  jobInUserList: (userId: string, createdAt: string, jobId: string) => ({ GSI1PK: `USER#${userId}#JOBS`, GSI1SK: `${createdAt}#${jobId}` }),
  activeJobs: 'ACTIVE_JOBS',
  paymentEvent: (eventId: string) => ({ PK: `PAYMENT_EVENT#${eventId}`, SK: 'EVENT' }),
  payment: (paymentId: string) => ({ PK: `PAYMENT#${paymentId}`, SK: 'META' }),
  dailyCounters: (date: string) => ({ PK: 'ANALYTICS#DAILY', SK: `DATE#${date}` }),
  metric: (kind: string, periodStart: string) => ({ PK: `ANALYTICS#${kind.toUpperCase()}`, SK: `PERIOD#${periodStart}` }),
  clientSession: (day: string, createdAt: string, sessionId: string) => ({ PK: `SESSIONS#${day}`, SK: `${createdAt}#${sessionId}` }),
  rateWindow: (scope: string, subject: string, window: number) => ({ PK: `RATE#${scope}#${subject}`, SK: `WINDOW#${window}` }),
} as const;

/** One write of a DynamoDB transaction, as the entity modules hand them to each other. */
export type TransactItem = NonNullable<import('@aws-sdk/lib-dynamodb').TransactWriteCommandInput['TransactItems']>[number];
