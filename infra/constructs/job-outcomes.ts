import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FINAL_STATUSES } from '#core/jobs/final-state';
import type { Mail } from './mail';
import { ServerFunction } from './server-function';
import type { Storage } from './storage';

/** Attempts of a batch of stream records before its records go to the dead-letter queue. */
export const OUTCOME_RETRY_ATTEMPTS = 10;

/**
 * What follows a job's final state, off the table's stream: a Lambda function the
 * event source mapping calls only for job items whose status changed to done or
 * failed (the filter below; the handler checks again). It holds the rights the
 * render worker does not: the whole table (refund, ledger, counters) and e-mail.
 * A batch that keeps failing is retried from its failed record, split in halves,
 * then set aside in a dead-letter queue that the monitoring alarms on.
 */
export class JobOutcomes extends Construct {
  readonly handler: ServerFunction;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: { environment: Record<string, string>; storage: Storage; mail: Mail }) {
    super(scope, id);
    this.handler = new ServerFunction(this, 'FinalState', { entry: 'lambdas/streams/job-final-state.ts', environment: { ...props.environment, CALL_BUDGET: 'background' }, timeout: Duration.seconds(60) });
    props.storage.table.grantReadWriteData(this.handler.fn);
    props.mail.grantSend(this.handler.fn); // the automatic problem and time-accuracy reports, the user's outcome e-mail
    props.storage.outputsBucket.grantRead(this.handler.fn); // the outcome e-mail links the render's preview (a presigned GET)
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const finalStatuses = [...FINAL_STATUSES];
    this.handler.fn.addEventSource(
      new DynamoEventSource(props.storage.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 10,
        retryAttempts: OUTCOME_RETRY_ATTEMPTS,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.deadLetters),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: lambda.FilterRule.isEqual('job') },
                SK: { S: lambda.FilterRule.isEqual('META') },
                status: { S: lambda.FilterRule.or(...finalStatuses) },
              },
              // A change of a job already done or failed (its refund, a report flag) is not an arrival.
              OldImage: { status: { S: [{ 'anything-but': finalStatuses }] } },
            },
          }),
        ],
      }),
    );
  }
}
