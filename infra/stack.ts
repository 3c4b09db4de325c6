import { Annotations, CfnOutput, Duration, Fn, SecretValue, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { keys } from '#core/db/keys';
import { functionNames, type FunctionName } from '#lambdas/routes';
import type { DeploySettings } from './settings';
import { checkStatedAccount, stackFunction } from './preflight';
import { Api } from './constructs/api';
import { Auth } from './constructs/auth';
import { Mail } from './constructs/mail';
import { JobOutcomes } from './constructs/job-outcomes';
import { Monitoring } from './constructs/monitoring';
import { RenderFarm } from './constructs/render-farm';
import { RenderFunction, workerImage } from './constructs/render-function';
import { MediaProbe } from './constructs/media-probe';
import { LivePreviews } from './constructs/live-previews';
import { Schedules } from './constructs/schedules';
import { ServerFunction } from './constructs/server-function';
import { Site } from './constructs/site';
import { PREVIEWS_PREFIX, Storage, UPLOADS_PREFIX } from './constructs/storage';

export interface CloudRenderStackProps extends StackProps {
  settings: DeploySettings;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * Everything the product needs on AWS, in one stack. Environment-agnostic on
 * purpose: no account or region is resolved at synth, so nothing is looked up and
 * `npx cdk synth` works offline; `cdk deploy` uses the credentials' account/region.
 */
export class CloudRenderStack extends Stack {
  constructor(scope: Construct, id: string, props: CloudRenderStackProps) {
    super(scope, id, props);
    const { settings } = props;
    Tags.of(this).add('app', 'cloud-render');
    Tags.of(this).add('stage', settings.stage);
    // The preflight's checks that need no account, at synth: plain `cdk deploy` meets them too, before CloudFormation starts.
    this.node.addValidation({
      validate: () =>
        checkStatedAccount(
          { region: settings.region, concurrency: settings.accountConcurrency, functionMemoryMiB: settings.accountFunctionMemoryMiB },
          this.node.findAll().filter((child): child is lambda.CfnFunction => child instanceof lambda.CfnFunction).map((fn) => this.functionOf(fn)),
        ),
    });

    // The API exists before CloudFront (its /api/* origin), CloudFront before the
    // functions (they need the site's address), the functions before the routes.
    const api = new Api(this, 'Api', { rateLimit: settings.apiRateLimit, burstLimit: settings.apiBurstLimit });
    // The API's own endpoint is public: CloudFront adds this secret header to every
    // request it forwards, and the functions refuse requests without it, so the only
    // way in is through CloudFront (and its WAF), whose viewer-address header the
    // anonymous rate limits trust.
    const originVerify = new secretsmanager.Secret(this, 'OriginVerifySecret', {
      description: 'Header value CloudFront adds to API requests; the API refuses requests without it',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    const originVerifyValue = originVerify.secretValue.unsafeUnwrap();
    const site = new Site(this, 'Site', {
      apiDomainName: api.domainName,
      originVerifyValue,
      siteDomain: settings.siteDomain,
      certificateArn: settings.certificateArn,
      wafWebAclArn: settings.wafWebAclArn,
      webDistDir: settings.webDistDir,
    });
    const siteUrl = site.siteUrl;

    const storage = new Storage(this, 'Storage', { siteUrl });
    const mail = new Mail(this, 'Mail', { mailFrom: settings.mailFrom, createIdentity: settings.createMailIdentity });
    const auth = new Auth(this, 'Auth', {
      siteUrl,
      mailFrom: settings.mailFrom,
      supportEmail: settings.supportEmail,
      cognitoEmailViaSes: settings.cognitoEmailViaSes,
      google: settings.googleClientId
        ? {
            clientId: settings.googleClientId,
            clientSecretName: settings.googleClientSecretName,
            // Unique per region: the account id makes it unique without a look-up.
            domainPrefix: settings.authDomainPrefix ?? Fn.join('-', ['cloud-render', settings.stage, this.account]),
          }
        : undefined,
    });

    // Placeholders until the owner stores the real values (README, Deploy). Never
    // change them here: CloudFormation would overwrite the owner's values.
    const stripeSecret = new secretsmanager.Secret(this, 'StripeSecret', {
      description: 'Stripe secret key and webhook signing secret: {"secretKey","webhookSecret"}',
      secretObjectValue: {
        secretKey: SecretValue.unsafePlainText(''),
        webhookSecret: SecretValue.unsafePlainText(''),
      },
    });

    // The business metrics' namespace, one per stage (observability/metrics.ts writes there, the monitoring reads there).
    const metricsNamespace = `CloudRender/${settings.stage}`;
    // What core/config.ts reads (and Powertools, the POWERTOOLS_ ones). The worker
    // gets the part that does not name its own task definition.
    const sharedEnvironment: Record<string, string> = {
      POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
      TABLE_NAME: storage.table.tableName,
      UPLOADS_BUCKET: storage.uploadsBucket.bucketName,
      OUTPUTS_BUCKET: storage.outputsBucket.bucketName,
      USER_POOL_ID: auth.userPool.userPoolId,
      USER_POOL_CLIENT_ID: auth.client.userPoolClientId,
      SITE_URL: siteUrl,
      ADMIN_EMAILS: settings.adminEmails.join(','),
      MAIL_MODE: 'ses',
      MAIL_FROM: settings.mailFrom,
      SUPPORT_EMAIL: settings.supportEmail,
      OWNER_EMAIL: settings.ownerEmail,
    };
    const render = new RenderFarm(this, 'Render', {
      storage,
      environment: sharedEnvironment,
      cpu: settings.renderCpu,
      memoryMiB: settings.renderMemoryMiB,
      architecture: settings.renderArchitecture,
      maxVcpus: settings.renderMaxVcpus,
    });
    const worker = workerImage(settings.renderFunctionArchitecture);
    // renderFunctionConcurrency 0: no render function, every render goes to Batch (an account with too little
    // concurrency for the fast path; npm run deploy -- --batch-only, scripts/deploy.ts).
    const renderFunction =
      settings.renderFunctionConcurrency > 0
        ? new RenderFunction(this, 'RenderFunction', { environment: sharedEnvironment, sessionBroker: render.sessionBroker.fn, reservedConcurrency: settings.renderFunctionConcurrency, worker, snapStart: settings.snapStart })
        : undefined;
    const serverEnvironment: Record<string, string> = {
      ...sharedEnvironment,
      PAYMENTS_MODE: 'stripe',
      STRIPE_SECRET_ARN: stripeSecret.secretArn,
      ORIGIN_VERIFY_SECRET: originVerifyValue,
      ...render.submitEnvironment,
      ...renderFunction?.submitEnvironment,
    };

    const apiFunctions = Object.fromEntries(
      functionNames.map((name) => [
        name,
        new ServerFunction(this, `${pascal(name)}Function`, {
          entry: `lambdas/functions/${name}.ts`,
          environment: serverEnvironment,
          // An admin's Import recomputes a metric from every user's jobs and ledger: allow up to API Gateway's 29 s.
          // Creating a job may wait for the media probe (adapters/media-probe.ts: 25 s, its cold start included).
          ...(name === 'analytics' || name === 'jobs' || name === 'developer' ? { timeout: Duration.seconds(29) } : {}),
          // Creating a job reads the uploaded model (up to 100 MB; a .gltf's base64 text is held about three times while it is checked).
          ...(name === 'jobs' || name === 'developer' ? { memorySize: 1536 } : {}),
        }),
      ]),
    ) as Record<FunctionName, ServerFunction>;

    // Each function gets only what its handlers use.
    const { table, uploadsBucket, outputsBucket } = storage;
    const system = apiFunctions.system.fn;
    table.grantReadData(system);
    // The health check writes one thing: its uptime sample for the day (core/analytics/metrics.ts, recordHealthSample),
    // under the health partition alone.
    system.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [keys.healthSamplesPartition] } },
      }),
    );
    system.addToRolePolicy(
      // The health check's HeadBucket.
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [uploadsBucket.bucketArn, outputsBucket.bucketArn] }),
    );
    table.grantReadWriteData(apiFunctions.accounts.fn);
    // The web app's jobs function and the render API create jobs the same way.
    const jobCreators = [apiFunctions.jobs.fn, apiFunctions.developer.fn];
    const mediaProbe = new MediaProbe(this, 'MediaProbe', { environment: sharedEnvironment, image: worker.image, architecture: worker.architecture, reservedConcurrency: settings.probeConcurrency });
    for (const creator of jobCreators) {
      table.grantReadWriteData(creator);
      // Presigned POSTs are signed with the function's credentials: they can only
      // put inputs under the uploads prefix. Reading there is for inspecting a
      // job's input (with list rights, a missing key answers 404 rather than 403).
      creator.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [uploadsBucket.arnForObjects(`${UPLOADS_PREFIX}*`)] }));
      uploadsBucket.grantRead(creator, `${UPLOADS_PREFIX}*`);
      render.grantSubmit(creator);
      // Abandoning a job (the web and the render API) calls its farm jobs off.
      render.grantCancel(creator);
      renderFunction?.grantSubmit(creator);
      // Creating a job measures the uploaded audio with ffprobe, which the Node.js runtime lacks: the render image has it.
      mediaProbe.grantProbe(creator);
    }
    // Live previews: the customise page's (jobs), the render API's (developer) and a visitor's (analytics, which knows visitors); each keeps the pictures it made under previews/.
    const previews = new LivePreviews(this, 'LivePreviews', {
      environment: sharedEnvironment,
      image: worker.image,
      architecture: worker.architecture,
      provisionedConcurrency: settings.previewProvisionedConcurrency,
      reservedConcurrency: settings.previewConcurrency,
      snapStart: settings.snapStart,
    });
    for (const previewer of [apiFunctions.jobs.fn, apiFunctions.developer.fn, apiFunctions.analytics.fn]) {
      previews.grantPreview(previewer);
      outputsBucket.grantReadWrite(previewer, `${PREVIEWS_PREFIX}*`);
    }
    const jobs = apiFunctions.jobs.fn;
    outputsBucket.grantRead(jobs);
    stripeSecret.grantRead(jobs); // a render paid by card opens its PaymentIntent here
    mail.grantSend(jobs); // problem reports to support
    const payments = apiFunctions.payments.fn;
    table.grantReadWriteData(payments);
    stripeSecret.grantRead(payments);
    render.grantSubmit(payments);
    renderFunction?.grantSubmit(payments);
    mail.grantSend(payments); // the owner's alert on a payment amount mismatch
    // Refunds, counters and reports follow a job's final state outside the worker, off the table's stream.
    const outcomes = new JobOutcomes(this, 'JobOutcomes', { environment: serverEnvironment, storage, mail });
    // A job's end gives its render slot back and sends its user's next waiting job to the farm.
    render.grantSubmit(outcomes.handler.fn);
    renderFunction?.grantSubmit(outcomes.handler.fn);
    table.grantReadWriteData(apiFunctions.analytics.fn);
    // The render API also writes the ZIPs of CSV batches.
    outputsBucket.grantReadWrite(apiFunctions.developer.fn);
    api.addRoutesFromTable(
      Object.fromEntries(functionNames.map((name) => [name, apiFunctions[name].fn])) as Record<FunctionName, ServerFunction['fn']>,
      auth.userPool,
      auth.client,
    );

    const schedules = new Schedules(this, 'Scheduled', { environment: serverEnvironment, storage, mail });
    render.grantSweep(schedules.functions.StaleJobs.fn);
    renderFunction?.grantSubmit(schedules.functions.StaleJobs.fn);

    const monitoring = new Monitoring(this, 'Monitoring', { alarmEmail: settings.alarmEmail, namespace: metricsNamespace });
    for (const name of functionNames) monitoring.watchFunction(`${pascal(name)}Function`, apiFunctions[name]);
    for (const [name, fn] of Object.entries(schedules.functions)) monitoring.watchFunction(name, fn);
    monitoring.watchFunction('CustomMessage', auth.customMessage);
    monitoring.watchFunction('JobFinalState', outcomes.handler);
    monitoring.watchFunction('WorkerSessionBroker', render.sessionBroker);
    if (renderFunction) monitoring.watchFunction('RenderFunction', renderFunction);
    // Errors only: with no reserved concurrency the probe is throttled only when the account's pool is spent, which throttles (and alarms) the API's functions too.
    monitoring.watchFunction('MediaProbe', mediaProbe, { throttles: false });
    if (renderFunction) monitoring.watchDeadLetters('RenderFunction', renderFunction.deadLetters);
    monitoring.watchDeadLetters('JobFinalState', outcomes.deadLetters);
    monitoring.countWorkerMetrics(render.logGroup);
    monitoring.watchRenderOutcomes();
    monitoring.watchTransactionConflicts(table);
    // Last, so it shows every alarm. The render queue's widgets join once the stack has one.
    monitoring.buildDashboard({ api: api.httpApi });

    if (!settings.stripePublishableKey) {
      Annotations.of(this).addWarningV2(
        'cloud-render:no-stripe-publishable-key',
        "Context 'stripePublishableKey' is not set: the web app cannot take card payments.",
      );
    }
    site.deployWebApp({
      region: this.region,
      userPoolId: auth.userPool.userPoolId,
      userPoolClientId: auth.client.userPoolClientId,
      paymentsMode: 'stripe',
      ...(settings.stripePublishableKey ? { stripePublishableKey: settings.stripePublishableKey } : {}),
      googleSignIn: auth.oauth !== undefined,
      ...(auth.oauth ? { oauth: auth.oauth } : {}),
      ...(settings.siteGatePasswordHash ? { siteGateHash: settings.siteGatePasswordHash } : {}),
    }, settings.webDistDir);

    new CfnOutput(this, 'SiteUrl', { value: siteUrl, description: 'The site' });
    new CfnOutput(this, 'ApiUrl', { value: `${siteUrl}/api`, description: 'The API, as the browser reaches it (through CloudFront)' });
    new CfnOutput(this, 'HttpApiEndpoint', { value: api.httpApi.apiEndpoint, description: 'The HTTP API itself, bypassing CloudFront' });
    new CfnOutput(this, 'UserPoolId', { value: auth.userPool.userPoolId });
    new CfnOutput(this, 'UserPoolClientId', { value: auth.client.userPoolClientId });
    new CfnOutput(this, 'StripeSecretArn', { value: stripeSecret.secretArn, description: 'Store the Stripe secrets here (README, Deploy)' });
    new CfnOutput(this, 'StripeWebhookUrl', { value: `${siteUrl}/api/payments/webhook`, description: "Register this endpoint in Stripe's dashboard" });
    new CfnOutput(this, 'AlarmTopicArn', { value: monitoring.topic.topicArn });
    if (auth.oauth) {
      new CfnOutput(this, 'AuthDomain', { value: auth.oauth.domain, description: "Cognito hosted UI; Google's redirect URI is https://<this>/oauth2/idpresponse" });
    }
  }

  /** A function as the preflight reads it from the template, read off its construct. */
  private functionOf(fn: lambda.CfnFunction) {
    const environment = this.resolve(fn.environment) as { variables?: Record<string, unknown> } | undefined;
    return stackFunction(this.getLogicalId(fn), {
      ReservedConcurrentExecutions: fn.reservedConcurrentExecutions,
      MemorySize: fn.memorySize,
      Description: fn.description,
      Environment: { Variables: environment?.variables ?? {} },
    });
  }
}
