import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { routes } from '#lambdas/routes';

/**
 * Every cdk-nag finding (AwsSolutions and Serverless rule packs) this stack accepts,
 * with the reason a reviewer can check. Findings that were cheap to fix are fixed
 * in the constructs instead; anything new fails test/infra/nag.test.ts until it is
 * fixed or given a line here.
 *
 * `path` is the construct's path below the stack ('' for the whole stack, only for
 * reasons that hold for every resource the finding can name). An acknowledgment
 * covers the construct and everything under it. A rule that reports several
 * findings on one resource (IAM4, IAM5) is acknowledged per finding, so a new
 * wildcard on the same role is still reported.
 */
export interface NagSuppression {
  path: string;
  id: string;
  reason: string;
}

/** CDK's own function that copies the built web app into the site bucket (shared by both deployments). */
const BUCKET_DEPLOYMENT = 'Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C512MiB';
const TABLE = 'StorageTableB43FDCE7';
const UPLOADS = 'StorageUploadsBucket03E44DD0';
const OUTPUTS = 'StorageOutputsBucket49742862';

export const nagSuppressions: readonly NagSuppression[] = [
  // Routes without a token, each on purpose.
  { path: 'Api/HttpApi/GET--api--health', id: 'AwsSolutions-APIG4', reason: 'Health check for monitors and the smoke test; reports component status only, no data.' },
  { path: 'Api/HttpApi/GET--api--scenes', id: 'AwsSolutions-APIG4', reason: 'The public scene catalogue, browsed before signing in.' },
  { path: 'Api/HttpApi/GET--api--scenes--{sceneId}--delivery', id: 'AwsSolutions-APIG4', reason: "A scene's delivery figures for the customise page's promise, shown before signing in; aggregate step times, no customer's data." },
  { path: 'Api/HttpApi/POST--api--quotes', id: 'AwsSolutions-APIG4', reason: 'Price quotes for visitors; computes a price, stores nothing.' },
  { path: 'Api/HttpApi/POST--api--visitor-previews', id: 'AwsSolutions-APIG4', reason: 'Live previews for visitors before signing in: no upload, rate-limited per visitor (salted address hash), stores only the picture.' },
  { path: 'Api/HttpApi/POST--api--payments--webhook', id: 'AwsSolutions-APIG4', reason: "Stripe's webhook: authenticated by its signature header, verified in the handler." },
  { path: 'Api/HttpApi/POST--api--sessions', id: 'AwsSolutions-APIG4', reason: 'Anonymous visitor analytics; validated, throttled, no personal data.' },
  { path: 'Api/HttpApi/POST--api--page-views', id: 'AwsSolutions-APIG4', reason: 'Anonymous visitor analytics; validated, throttled, no personal data.' },
  { path: 'Api/HttpApi/GET--api--v1--openapi.json', id: 'AwsSolutions-APIG4', reason: 'The render API\'s published OpenAPI document; built from the schemas, no data.' },
  { path: 'Api/HttpApi/GET--api--jobs--{jobId}--picture', id: 'AwsSolutions-APIG4', reason: "The outcome e-mail's picture link, opened from a mail client with no session: its 256-bit token is checked by hash in the jobs function." },
  // The render API's routes check their API key (and its rate limit) in the function, so that a refusal is the API's documented 401.
  ...routes
    .filter((route) => route.access === 'apiKey')
    .map((route) => ({ path: `Api/HttpApi/${route.method}${route.path.replaceAll('/', '--')}`, id: 'AwsSolutions-APIG4', reason: 'API key checked by the developer function itself (lambdas/lib/http.ts): an HTTP API authorizer would refuse with its own body.' })),
  { path: 'Api/DefaultRoute', id: 'AwsSolutions-APIG4', reason: 'Unknown routes: the system function answers the documented 404 and nothing else.' },

  // Logging and monitoring that would add a fixed monthly cost or a second copy of what is already logged.
  { path: 'Site/Bucket', id: 'AwsSolutions-S1', reason: 'Private bucket read only by CloudFront through origin access control; holds only the public web build.' },
  { path: 'Storage/UploadsBucket', id: 'AwsSolutions-S1', reason: 'Written only through presigned POSTs the API issues and logs per user; objects expire by lifecycle.' },
  { path: 'Storage/OutputsBucket', id: 'AwsSolutions-S1', reason: 'Read only through presigned GETs the API issues and logs per user after checking ownership.' },
  { path: 'Site/Distribution', id: 'AwsSolutions-CFR3', reason: 'The API behind /api/* logs every request in Lambda; static files need no per-request log bucket.' },
  { path: 'RenderFunction/DeadLetters', id: 'AwsSolutions-SQS3', reason: "It is the dead-letter queue: the render function's failed asynchronous invocations land here (alarmed)." },
  { path: 'RenderFunction/DeadLetters', id: 'Serverless-SQSRedrivePolicy', reason: "It is the dead-letter queue: the render function's failed asynchronous invocations land here (alarmed)." },
  { path: 'Render/Vpc', id: 'AwsSolutions-VPC7', reason: 'Public subnets for render workers that accept no inbound traffic; flow logs would cost per GB of frames uploaded.' },

  // TLS: CloudFront's default certificate cannot refuse TLS 1.0; a custom domain gets TLSv1.2_2021 (site.ts).
  { path: 'Site/Distribution', id: 'AwsSolutions-CFR4', reason: 'Default CloudFront certificate allows no minimum protocol; with siteDomain/certificateArn the stack sets TLSv1.2_2021.' },

  // Identity.
  { path: 'Auth/UserPool', id: 'AwsSolutions-COG1', reason: 'The product rule is 8+ characters and strength 3 of 5, checked by the app; forcing every class would reject valid passwords.' },
  { path: 'Auth/UserPool', id: 'AwsSolutions-COG8', reason: 'The Plus feature plan bills per monthly active user; threat protection is not part of the product.' },
  { path: 'OriginVerifySecret', id: 'AwsSolutions-SMG4', reason: 'A random header value shared by CloudFront and the API at deploy time; rotating it means redeploying both, which a new deploy of a regenerated secret does.' },
  { path: 'StripeSecret', id: 'AwsSolutions-SMG4', reason: "Stripe keys are rolled in Stripe's dashboard by the owner, who then stores them here; AWS cannot rotate them." },

  // Configuration, not secrets.

  // AWS managed policies.
  {
    path: '',
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: "Lambda's minimal policy: writing its own logs; nothing else.",
  },

  // Wildcards, each bounded to this stack's resources.
  { path: '', id: 'AwsSolutions-IAM5[Resource::<RenderSessionBrokerFunctionD8B86167.Arn>:*]', reason: "CDK's invoke grant on the session broker (to the render function) covers its versions and aliases; no other function." },
  { path: '', id: `AwsSolutions-IAM5[Resource::<${TABLE}.Arn>/index/*]`, reason: "The table's own secondary indexes (CDK grants); no other table." },
  { path: '', id: 'AwsSolutions-IAM5[Action::s3:GetObject*]', reason: 'CDK read grant (GetObject and its version/ACL/tagging reads) on this stack\'s buckets only.' },
  { path: '', id: 'AwsSolutions-IAM5[Action::s3:GetBucket*]', reason: "CDK read grant (bucket location/metadata) on this stack's buckets only." },
  { path: '', id: 'AwsSolutions-IAM5[Action::s3:List*]', reason: "CDK read grant (listing, so a missing key answers 404) on this stack's buckets only." },
  { path: '', id: 'AwsSolutions-IAM5[Action::s3:DeleteObject*]', reason: 'CDK delete grant; the worker deletes inputs after processing, as the product promises.' },
  { path: '', id: 'AwsSolutions-IAM5[Action::s3:Abort*]', reason: 'CDK write grant (aborting multipart uploads) on this stack\'s buckets only.' },
  {
    path: '',
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
    reason: "SES authorises each sandbox recipient's identity too; the policy is narrowed by the ses:FromAddress condition.",
  },
  { path: '', id: `AwsSolutions-IAM5[Resource::<${OUTPUTS}.Arn>/previews/*]`, reason: 'Live previews kept by the hash of what they show (the API functions that answer previews); nothing else of the outputs.' },
  { path: '', id: `AwsSolutions-IAM5[Resource::<${OUTPUTS}.Arn>/*]`, reason: 'Outputs of any job: the worker writes them, the API presigns downloads after checking the owner.' },
  {
    path: 'Render/WorkerJobScopeRole',
    id: `AwsSolutions-IAM5[Resource::<${OUTPUTS}.Arn>/users/<aws:PrincipalTag/userId>/jobs/<aws:PrincipalTag/jobId>/*]`,
    reason: "One job's outputs prefix, named by the session's jobId and userId tags.",
  },
  {
    path: 'Render/WorkerJobScopeRole',
    id: `AwsSolutions-IAM5[Resource::<${UPLOADS}.Arn>/uploads/<aws:PrincipalTag/userId>/*]`,
    reason: "The job owner's uploads (session tag userId), narrowed by the worker's session policy to the job's one input.",
  },
  { path: 'JobOutcomes/FinalState', id: 'AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams (added by the stream event source) and X-Ray tracing have no resource-level permission.' },
  { path: 'JobsFunction', id: `AwsSolutions-IAM5[Resource::<${UPLOADS}.Arn>/uploads/*]`, reason: 'Presigned POSTs only under the uploads prefix; the key per user is fixed by the POST policy.' },
  {
    path: '',
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:batch:<AWS::Region>:<AWS::AccountId>:job/*]',
    reason: "batch:TerminateJob on this account's Batch jobs: a job's id is made when it is submitted; the API terminates only the ids stored on the abandoned job.",
  },
  { path: 'Scheduled/StaleJobs', id: 'AwsSolutions-IAM5[Resource::*]', reason: 'batch:DescribeJobs (the sweep asks whether a silent queued job still waits for capacity) and X-Ray tracing have no resource-level permission.' },
  // Active tracing on every function: xray:PutTraceSegments and PutTelemetryRecords have no resource-level permission.
  ...['SystemFunction', 'AccountsFunction', 'JobsFunction', 'PaymentsFunction', 'AnalyticsFunction', 'DeveloperFunction', 'Auth/CustomMessage', 'Scheduled/AnalyticsRollup', 'Scheduled/Retention', 'Scheduled/WebhookRetries', 'Scheduled/Reconciliation', 'Render/SessionBroker', 'RenderFunction/Function', 'MediaProbe/Function', 'LivePreviews/Function'].map(
    (path) => ({ path, id: 'AwsSolutions-IAM5[Resource::*]', reason: 'X-Ray tracing (PutTraceSegments, PutTelemetryRecords) has no resource-level permission.' }),
  ),
  { path: 'DeveloperFunction', id: `AwsSolutions-IAM5[Resource::<${UPLOADS}.Arn>/uploads/*]`, reason: 'The render API\'s presigned POSTs, only under the uploads prefix, as the jobs function\'s.' },
  { path: 'Render/ExecutionRole', id: 'AwsSolutions-IAM5[Resource::*]', reason: 'ecr:GetAuthorizationToken has no resource-level permission (CDK adds it for the image pull).' },
  { path: BUCKET_DEPLOYMENT, id: 'AwsSolutions-IAM5[Resource::*]', reason: "CDK's web deployment function: CloudFront invalidation has no resource-level permission." },
  {
    path: BUCKET_DEPLOYMENT,
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
    reason: "CDK's web deployment function reads the built web app from the CDK asset bucket.",
  },
  { path: BUCKET_DEPLOYMENT, id: 'AwsSolutions-IAM5[Resource::<SiteBucket978D4AEB.Arn>/*]', reason: "CDK's web deployment function replaces the site bucket's files." },

  // CDK's own function: its runtime is chosen by aws-cdk-lib, not by us.
  { path: BUCKET_DEPLOYMENT, id: 'AwsSolutions-L1', reason: "aws-cdk-lib pins the runtime of its BucketDeployment handler; it runs only during deploys." },
  { path: BUCKET_DEPLOYMENT, id: 'Serverless-LambdaLatestVersion', reason: "aws-cdk-lib pins the runtime of its BucketDeployment handler; it runs only during deploys." },

  // Failure handling without dead-letter queues.
  {
    path: '',
    id: 'Serverless-LambdaDLQ',
    reason: 'API, Cognito and deploy functions are invoked synchronously (the caller sees the error); scheduled jobs re-run on their next tick and alarm on errors.',
  },
  { path: 'Scheduled', id: 'Serverless-EventBusDLQ', reason: 'Schedules are idempotent sweeps: a missed invocation is redone by the next one; errors alarm.' },
  // The daily keep-active invocations of the SnapStart aliases (keepVersionActive), where snapStart is on.
  { path: 'RenderFunction', id: 'Serverless-EventBusDLQ', reason: 'Its one EventBridge target is the daily keep-active invocation: a missed one is redone the next day, 13 days before the version would go Inactive.' },
  { path: 'LivePreviews', id: 'Serverless-EventBusDLQ', reason: 'Its one EventBridge target is the daily keep-active warm-up: a missed one is redone the next day, 13 days before the version would go Inactive.' },
  { path: 'JobOutcomes/DeadLetters', id: 'AwsSolutions-SQS3', reason: "It is the dead-letter queue of the stream's event source mapping (an on-failure destination, which the rule does not see)." },
  { path: 'JobOutcomes/DeadLetters', id: 'Serverless-SQSRedrivePolicy', reason: 'It is itself the last stop of the stream records; its messages alarm and are replayed by hand.' },
  { path: 'Monitoring/AlarmTopic', id: 'Serverless-SNSRedrivePolicy', reason: 'An e-mail subscription for alarms; an undelivered alarm e-mail is also visible in the CloudWatch console.' },
];

/**
 * Records the acknowledgments on the stack's constructs (CDK's `Validations`
 * metadata, which cdk-nag reads). A suppression whose path names no construct
 * throws, so a renamed resource cannot leave a stale line behind.
 */
export function acknowledgeNagFindings(stack: Stack, suppressions: readonly NagSuppression[] = nagSuppressions): void {
  const byPath = new Map<string, IConstruct>(stack.node.findAll().map((construct) => [construct.node.path, construct]));
  // A stack deployed without its render function (renderFunctionConcurrency 0) has none of its findings to accept.
  const renderFunctionOff = !byPath.has(`${stack.node.path}/RenderFunction`);
  for (const { path, id, reason } of suppressions) {
    if (renderFunctionOff && (path === 'RenderFunction' || path.startsWith('RenderFunction/'))) continue;
    const scope = path === '' ? stack : byPath.get(`${stack.node.path}/${path}`);
    if (!scope) throw new Error(`cdk-nag suppression of ${id}: no construct at ${path} in ${stack.stackName}`);
    Validations.of(scope).acknowledge({ id, reason });
  }
}
