import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { tableDefinition } from '#core/db/table';

/** Key prefix of uploaded inputs in the uploads bucket (the jobs API presigns POSTs under it). */
export const UPLOADS_PREFIX = 'uploads/';
/** Live previews kept by the hash of what they show (core/storage/storage.ts). */
export const PREVIEWS_PREFIX = 'previews/';

/** Settings every private bucket of the product shares. */
export const privateBucketProps = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  encryption: s3.BucketEncryption.S3_MANAGED,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
} satisfies s3.BucketProps;

/**
 * The one DynamoDB table, built from the one table definition, and the buckets of
 * user files. The table and the outputs bucket hold users' data, so they survive
 * the stack's deletion; uploaded inputs are transient (deleted after processing,
 * and expired after a day in any case).
 */
export class Storage extends Construct {
  readonly table: dynamodb.Table;
  readonly uploadsBucket: s3.Bucket;
  readonly outputsBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { siteUrl: string }) {
    super(scope, id);

    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: dynamodb.StreamViewType[tableDefinition.stream],
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    // The browser posts inputs straight to S3 (presigned POST) and fetches outputs
    // with presigned GETs, so both buckets answer CORS for the site's origin only.
    const cors = (methods: s3.HttpMethods[]): s3.CorsRule[] => [
      { allowedOrigins: [props.siteUrl], allowedMethods: methods, allowedHeaders: ['*'], exposedHeaders: ['ETag'], maxAge: 3000 },
    ];

    this.uploadsBucket = new s3.Bucket(this, 'UploadsBucket', {
      ...privateBucketProps,
      cors: cors([s3.HttpMethods.POST, s3.HttpMethods.GET, s3.HttpMethods.HEAD]),
      lifecycleRules: [{ id: 'expire-inputs', expiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    this.outputsBucket = new s3.Bucket(this, 'OutputsBucket', {
      ...privateBucketProps,
      cors: cors([s3.HttpMethods.GET, s3.HttpMethods.HEAD]),
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Live previews are kept by the hash of what they show, for a day (core/previews/previews.ts).
        { id: 'expire-previews', prefix: PREVIEWS_PREFIX, expiration: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
