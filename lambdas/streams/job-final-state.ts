import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { handleTableStreamBatch, type TableStreamRecord } from '#core/jobs/final-state';
import { traced } from '#observability/tracing';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The table's stream, filtered by the event source mapping to jobs arriving in done
 * or failed: runs the effects of each final state (the local stream poller calls the
 * same function with the same records). Each job's effects are one traced
 * subsegment, annotated with its job id.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  handleTableStreamBatch(event.Records as TableStreamRecord[], (work) => traced('job-final-state', work));
