/**
 * `npm run deploy`: checks the account's Lambda concurrency against what the stack reserves
 * (infra/preflight.ts) before anything changes, then builds the web app and runs `cdk deploy`.
 *
 *   npm run deploy [-- --fit | --batch-only] [cdk deploy's own arguments, -c key=value...]
 *
 * --fit         the render function reserves what the account has room for, if it has less than the setting
 * --batch-only  no render function: every render runs on AWS Batch
 *
 * It reads the account with the deployer's credentials (lambda:GetAccountSettings, ListFunctions and
 * GetFunction, each answered within 10 s) in the Region the AWS SDK's provider chain resolves (AWS_REGION, then
 * the profile's ~/.aws/config), the one `cdk deploy` targets; a refusal says what to ask AWS for and exits with 2.
 * The checks that need no account (the stated account limit, the memory cap, the certificate's Region) run in
 * the stack's synthesis itself (infra/stack.ts), so plain `cdk deploy` meets them too.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { GetAccountSettingsCommand, GetFunctionCommand, LambdaClient, paginateListFunctions } from '@aws-sdk/client-lambda';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { fromRoot } from '#infra/paths';
import { checkAccount, reservationsOf, type AccountConcurrency, type DeployChoice, type Preflight } from '#infra/preflight';
import { readSettings } from '#infra/settings';
import { CloudRenderStack } from '#infra/stack';

/** Every call to the control plane: answered within this, or the deploy stops before changing anything. */
const CALL_MS = 10_000;

export interface DeployArguments {
  choice: DeployChoice;
  /** CDK context from the command line (-c key=value / --context key=value). */
  context: Record<string, string>;
  /** What goes on to `cdk deploy`, as given. */
  cdkArgs: string[];
}

export function parseDeployArguments(argv: string[]): DeployArguments {
  const fit = argv.includes('--fit');
  const batchOnly = argv.includes('--batch-only');
  if (fit && batchOnly) throw new Error('Choose one of --fit and --batch-only.');
  const cdkArgs = argv.filter((arg) => arg !== '--fit' && arg !== '--batch-only');
  const context: Record<string, string> = {};
  cdkArgs.forEach((arg, i) => {
    const pair = arg === '-c' || arg === '--context' ? cdkArgs[i + 1] : arg.startsWith('--context=') ? arg.slice('--context='.length) : undefined;
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) context[pair.slice(0, at)] = pair.slice(at + 1);
  });
  return { choice: fit ? 'fit' : batchOnly ? 'batch-only' : 'as-is', context, cdkArgs };
}

/**
 * The stack as `cdk deploy` would synthesise it (cdk.json's context, then the command line's) for the Region it
 * targets, without bundling. Its synthesis runs the stack's own checks (infra/stack.ts): a stack that cannot fit
 * the stated account throws here, with the message plain `cdk deploy` would give.
 */
export function synthesisedStack(context: Record<string, string>, region?: string): { stackName: string; template: Record<string, any> } {
  const cdkJson = JSON.parse(readFileSync(fromRoot('cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  const app = new App({ context: { ...cdkJson.context, ...context, 'aws:cdk:bundling-stacks': [] } });
  const settings = readSettings(app.node, region);
  const stack = new CloudRenderStack(app, settings.stackName, { settings });
  return { stackName: stack.stackName, template: app.synth().getStackByName(stack.stackName).template };
}

/** The tag CloudFormation puts on every function it creates: the stack's own name, exactly. */
const STACK_NAME_TAG = 'aws:cloudformation:stack-name';

/**
 * The account's concurrency, and what this stack's own functions reserve now. A function is the stack's when
 * CloudFormation's stack-name tag says so: a name prefix alone would count `cloud-render-prod-eu-*` as
 * `cloud-render-prod`'s. The prefix only narrows which functions are asked (CloudFormation names them
 * `<stack>-<logical id>-<suffix>`), and one GetFunction answers both the tag and the reservation.
 */
export async function readAccount(lambda: LambdaClient, stackName: string, region: string): Promise<AccountConcurrency> {
  const settings = await lambda.send(new GetAccountSettingsCommand({}));
  const candidates: string[] = [];
  for await (const page of paginateListFunctions({ client: lambda }, {})) {
    for (const fn of page.Functions ?? []) if (fn.FunctionName?.startsWith(`${stackName}-`)) candidates.push(fn.FunctionName);
  }
  let reservedByStack = 0;
  for (const name of candidates) {
    const fn = await lambda.send(new GetFunctionCommand({ FunctionName: name }));
    if (fn.Tags?.[STACK_NAME_TAG] === stackName) reservedByStack += fn.Concurrency?.ReservedConcurrentExecutions ?? 0;
  }
  return { region, limit: settings.AccountLimit?.ConcurrentExecutions ?? 0, unreserved: settings.AccountLimit?.UnreservedConcurrentExecutions ?? 0, reservedByStack };
}

/** The preflight alone: the stack synthesised with the command line's context, the account read, the verdict. */
export async function preflight(args: DeployArguments, lambda: LambdaClient, region: string): Promise<Preflight> {
  const { stackName, template } = synthesisedStack(args.context, region);
  return checkAccount(await readAccount(lambda, stackName, region), reservationsOf(template), args.choice);
}

export function lambdaClient(region?: string, endpoint?: string): LambdaClient {
  return new LambdaClient({
    // Without one, the SDK's provider chain finds it: AWS_REGION, then the profile's ~/.aws/config, as `cdk deploy` does.
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    maxAttempts: 2,
    // Without throwOnRequestTimeout the handler only logs a late answer and waits on (adapters/clients.ts).
    requestHandler: new NodeHttpHandler({ connectionTimeout: 3_000, requestTimeout: CALL_MS, throwOnRequestTimeout: true }),
  });
}

/** The Region the deploy targets, from the SDK's provider chain (environment, then profile), or why there is none. */
export async function targetRegion(lambda: LambdaClient): Promise<string> {
  try {
    return await lambda.config.region();
  } catch {
    throw new Error('No AWS region: set AWS_REGION, or a region for your profile in ~/.aws/config, before deploying.');
  }
}

async function main(): Promise<void> {
  const args = parseDeployArguments(process.argv.slice(2));
  const lambda = lambdaClient();
  const region = await targetRegion(lambda);
  const verdict = await preflight(args, lambda, region);
  if (!verdict.ok) {
    console.error(verdict.message);
    process.exit(2);
  }
  console.log(verdict.summary);
  const run = (command: string, commandArgs: string[]) => {
    const { status } = spawnSync(command, commandArgs, { stdio: 'inherit' });
    if (status !== 0) process.exit(status ?? 1);
  };
  run('npm', ['run', 'build:web']);
  run('npx', ['cdk', 'deploy', ...args.cdkArgs, ...Object.entries(verdict.context).flatMap(([key, value]) => ['-c', `${key}=${value}`])]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(`Not deployed: ${(error as Error)?.message ?? error}`);
    process.exit(1);
  });
}
