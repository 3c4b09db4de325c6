import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '#core/db/table';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate, type Resource } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

const keySchema = (partitionKey: string, sortKey: string) => [
  { AttributeName: partitionKey, KeyType: 'HASH' },
  { AttributeName: sortKey, KeyType: 'RANGE' },
];

describe('DynamoDB table', () => {
  const table = () => {
    const tables = resourcesOf(template, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    return tables[0][1];
  };

  it('when the table is built, its keys are the table definition’s string keys', () => {
    expect(table().Properties.KeySchema).toEqual(keySchema(tableDefinition.partitionKey, tableDefinition.sortKey));
    const names = [tableDefinition.partitionKey, tableDefinition.sortKey, ...tableDefinition.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    expect(table().Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining([...new Set(names)].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }))),
    );
    expect(table().Properties.AttributeDefinitions).toHaveLength(new Set(names).size);
  });

  it('when the table is built, it has exactly the GSIs of the table definition, projecting all attributes', () => {
    const indexes = table().Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[];
    expect(indexes.map((index) => index.IndexName).sort()).toEqual(tableDefinition.globalSecondaryIndexes.map((index) => index.indexName).sort());
    for (const expected of tableDefinition.globalSecondaryIndexes) {
      const index = indexes.find((candidate) => candidate.IndexName === expected.indexName)!;
      expect(index.KeySchema).toEqual(keySchema(expected.partitionKey, expected.sortKey));
      expect(index.Projection).toEqual({ ProjectionType: 'ALL' });
    }
  });

  it('when items carry the TTL attribute, DynamoDB expires them', () => {
    expect(table().Properties.TimeToLiveSpecification).toEqual({ AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true });
  });

  it('when the table is built, it is on-demand, recoverable to a point in time, protected and retained', () => {
    const resource = table();
    expect(resource.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(resource.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(resource.Properties.DeletionProtectionEnabled).toBe(true);
    expect(resource.DeletionPolicy).toBe('Retain');
    expect(resource.UpdateReplacePolicy).toBe('Retain');
  });
});

describe('S3 buckets', () => {
  const buckets = () => resourcesOf(template, 'AWS::S3::Bucket');
  const bucketNamed = (fragment: string): [string, Resource] => {
    const found = buckets().filter(([id]) => id.includes(fragment));
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('when the stack is synthesised, it has the uploads, outputs and site buckets', () => {
    expect(buckets().map(([id]) => id)).toEqual(
      expect.arrayContaining([expect.stringContaining('Uploads'), expect.stringContaining('Outputs'), expect.stringContaining('SiteBucket')]),
    );
    expect(buckets()).toHaveLength(3);
  });

  it('when any bucket is created, it blocks every kind of public access', () => {
    for (const [id, bucket] of buckets()) {
      expect(bucket.Properties.PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    }
  });

  it('when a request to any bucket is not over TLS, the bucket policy denies it', () => {
    const policies = resourcesOf(template, 'AWS::S3::BucketPolicy').map(([, policy]) => policy.Properties);
    for (const [id] of buckets()) {
      const policy = policies.find((candidate) => JSON.stringify(candidate.Bucket) === JSON.stringify({ Ref: id }));
      expect(policy, id).toBeDefined();
      expect(policy!.PolicyDocument.Statement, id).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      );
    }
  });

  it('when an input is uploaded, it expires after a day and an unfinished upload is aborted', () => {
    const [, uploads] = bucketNamed('Uploads');
    expect(uploads.Properties.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]),
    );
  });

  it('when the browser posts an input, CORS allows POST from the site’s origin only', () => {
    const [, uploads] = bucketNamed('Uploads');
    const [rule] = uploads.Properties.CorsConfiguration.CorsRules;
    expect(rule.AllowedMethods).toContain('POST');
    expect(rule.AllowedOrigins).toHaveLength(1);
    expect(JSON.stringify(rule.AllowedOrigins)).toContain('DomainName');
    expect(rule.AllowedOrigins).not.toContain('*');
  });

  it('when the stack is deleted, the outputs (users’ renders) are retained', () => {
    const [, outputs] = bucketNamed('Outputs');
    expect(outputs.DeletionPolicy).toBe('Retain');
  });
});
