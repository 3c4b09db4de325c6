/**
 * The one table definition. The CDK stack (infra/) and the DynamoDB Local
 * bootstrap (infra/local/) both build the table from this object, so the
 * keys, indexes and TTL attribute cannot drift between the two homes.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalSecondaryIndexes: [
    // GSI1: a user's jobs newest first (GSI1PK = USER#{uid}#JOBS, GSI1SK = created_at#jobId),
    // and the user directory for the daily reconciliation (GSI1PK = USERS).
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    // GSI2: sparse index of jobs that a worker should be holding (queued or rendering),
    // sorted by last heartbeat, read by the stale-job sweep.
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
  timeToLiveAttribute: 'expiresAt',
  // Changes of items, before and after: a job arriving in done or failed triggers its
  // effects (refund, counters, reports) outside the render worker.
  stream: 'NEW_AND_OLD_IMAGES',
} as const;
