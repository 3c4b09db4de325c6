import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, functionIdOf, resourcesOf, synthesizeTemplate } from './stack-template';

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate();
}, SYNTH_TIMEOUT_MS);

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
  Condition?: Record<string, unknown>;
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Services that hold the product's data or secrets. */
const DATA_STORE_SERVICES = ['dynamodb', 's3', 'secretsmanager', 'kms', 'ssm'];

/** Every Allow statement of every identity policy in the template, named by where it lives. */
function allowStatements(): [string, Statement][] {
  const found: [string, Statement][] = [];
  const collect = (where: string, document: { Statement: Statement[] }) => {
    for (const statement of document.Statement) if (statement.Effect === 'Allow') found.push([where, statement]);
  };
  for (const [id, policy] of resourcesOf(template, 'AWS::IAM::Policy')) collect(id, policy.Properties.PolicyDocument);
  for (const [id, policy] of resourcesOf(template, 'AWS::IAM::ManagedPolicy')) collect(id, policy.Properties.PolicyDocument);
  for (const [id, role] of resourcesOf(template, 'AWS::IAM::Role')) {
    for (const inline of list(role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[])) collect(id, inline.PolicyDocument);
  }
  // The custom-resource providers CDK adds (bucket auto-delete) keep their policies here.
  for (const [id, resource] of Object.entries(template.toJSON().Resources as Record<string, { Type: string; Properties?: { Policies?: { PolicyDocument: { Statement: Statement[] } }[] } }>)) {
    if (resource.Type === 'AWS::IAM::Role') continue;
    for (const inline of list(resource.Properties?.Policies)) if (inline?.PolicyDocument) collect(id, inline.PolicyDocument);
  }
  return found;
}

/** The Allow statements of one function's role. */
function statementsOf(entry: string): Statement[] {
  const functionId = functionIdOf(template, entry);
  const role = JSON.stringify(template.toJSON().Resources[functionId].Properties.Role);
  const roleId = role.match(/"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/)![1];
  return resourcesOf(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument.Statement as Statement[]).filter((s) => s.Effect === 'Allow'));
}

const actionsOf = (entry: string): string[] => statementsOf(entry).flatMap((statement) => list(statement.Action));

describe('IAM', () => {
  it('when the stack grants anything, it never grants every action, or every action of a service', () => {
    expect(allowStatements().length).toBeGreaterThan(10);
    for (const [where, statement] of allowStatements()) {
      for (const action of list(statement.Action)) {
        expect(action, where).not.toBe('*');
        expect(action, where).not.toMatch(/^[a-z0-9-]+:\*$/);
      }
    }
  });

  it('when the stack grants an action on a data store, it names the resources instead of "*"', () => {
    // ListStreams (the stream event source's) has no resource-level permission; it lists stream names only.
    const UNSCOPABLE = ['dynamodb:ListStreams'];
    for (const [where, statement] of allowStatements()) {
      const onDataStore = list(statement.Action).some((action) => DATA_STORE_SERVICES.includes(action.split(':')[0]) && !UNSCOPABLE.includes(action));
      if (!onDataStore) continue;
      for (const resource of list(statement.Resource)) expect(resource, `${where}: ${JSON.stringify(statement.Action)}`).not.toBe('*');
    }
  });

  it('when the system function runs, it can read the table but not write it', () => {
    const actions = actionsOf('lambdas/functions/system.ts');
    expect(actions).toContain('dynamodb:GetItem');
    expect(actions).toContain('s3:ListBucket');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(actions).not.toContain('s3:PutObject');
  });

  it('when the jobs function presigns an upload, it may put objects under the uploads prefix only (and keep live previews under previews/ of the outputs)', () => {
    const puts = statementsOf('lambdas/functions/jobs.ts').filter((statement) => list(statement.Action).includes('s3:PutObject'));
    expect(puts).toHaveLength(2);
    const resources = puts.map((statement) => JSON.stringify(statement.Resource));
    expect(resources.filter((resource) => /Uploads.*\/uploads\/\*"/.test(resource))).toHaveLength(1);
    expect(resources.filter((resource) => /Outputs.*\/previews\/\*"/.test(resource))).toHaveLength(1);
  });

  it('when the API starts a render, it may submit Batch jobs only to the render queue with the render and finish definitions', () => {
    for (const entry of ['lambdas/functions/jobs.ts', 'lambdas/functions/payments.ts', 'lambdas/functions/developer.ts', 'lambdas/scheduled/stale-jobs.ts', 'lambdas/streams/job-final-state.ts']) {
      expect(actionsOf(entry), entry).toContain('batch:SubmitJob');
    }
    const [[queueId]] = resourcesOf(template, 'AWS::Batch::JobQueue');
    const definitionIds = resourcesOf(template, 'AWS::Batch::JobDefinition').map(([id]) => id).sort();
    expect(definitionIds).toHaveLength(2);
    const submits = allowStatements().filter(([, statement]) => list(statement.Action).includes('batch:SubmitJob'));
    expect(submits.length).toBeGreaterThan(0);
    for (const [where, statement] of submits) {
      expect(list(statement.Action), where).toEqual(['batch:SubmitJob']);
      const resources = list(statement.Resource as never).map((resource) => JSON.stringify(resource)).sort();
      expect(resources, where).toEqual([{ 'Fn::GetAtt': [queueId, 'JobQueueArn'] }, ...definitionIds.map((id) => ({ Ref: id }))].map((ref) => JSON.stringify(ref)).sort());
    }
  });

  it('when the stale-job sweep runs, it may ask Batch whether a silent job still waits for capacity, and nothing else may', () => {
    const describers = allowStatements().filter(([, statement]) => list(statement.Action).includes('batch:DescribeJobs'));
    expect(describers).toHaveLength(1);
    expect(list(describers[0][1].Action)).toEqual(['batch:DescribeJobs']);
    expect(actionsOf('lambdas/scheduled/stale-jobs.ts')).toContain('batch:DescribeJobs');
  });

  it('when functions that do not pay or render run, they cannot read the Stripe secret or start tasks', () => {
    for (const entry of ['lambdas/functions/system.ts', 'lambdas/functions/accounts.ts', 'lambdas/functions/analytics.ts', 'lambdas/scheduled/retention.ts']) {
      const actions = actionsOf(entry);
      expect(actions, entry).not.toContain('secretsmanager:GetSecretValue');
      expect(actions, entry).not.toContain('batch:SubmitJob');
      expect(actions, entry).not.toContain('ses:SendEmail');
    }
    expect(actionsOf('lambdas/functions/payments.ts')).toContain('secretsmanager:GetSecretValue');
    // A render paid by card opens its PaymentIntent when the job is created.
    expect(actionsOf('lambdas/functions/jobs.ts')).toContain('secretsmanager:GetSecretValue');
  });

  it('when a function sends e-mail, SES lets it send from the configured sender only', () => {
    for (const [where, statement] of allowStatements()) {
      if (!list(statement.Action).includes('ses:SendEmail')) continue;
      expect(statement.Condition, where).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
    }
    for (const entry of ['lambdas/functions/jobs.ts', 'lambdas/functions/payments.ts', 'lambdas/scheduled/reconciliation.ts', 'lambdas/streams/job-final-state.ts']) {
      expect(actionsOf(entry), entry).toContain('ses:SendEmail');
    }
  });
});
