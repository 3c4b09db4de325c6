import type { Node } from 'constructs';
import { DEFAULT_FAST_PATH_CONCURRENCY, DEFAULT_RENDER_FUNCTION_ARCHITECTURE } from '#shared/fast-path';

/**
 * The deployment's settings, read once from CDK context (cdk.json "context", or
 * `-c key=value` on the command line) and validated here. Every setting has a
 * default, so `npx cdk synth` works in a clean clone with no AWS credentials and
 * no look-ups; a value that is set but malformed fails synth with its name.
 */
export interface DeploySettings {
  /** Suffix of the stack name, so one account can hold e.g. `staging` and `prod`. */
  stage: string;
  stackName: string;
  /** Custom host name of the site (e.g. render.example.org); the CloudFront domain otherwise. */
  siteDomain?: string;
  /** ACM certificate (us-east-1) for siteDomain; required with it, since nothing is looked up. */
  certificateArn?: string;
  supportEmail: string;
  ownerEmail: string;
  /** Sender of the product's e-mails. */
  mailFrom: string;
  /**
   * Whether this stack creates the SES identity for mailFrom. SES identities belong to the account and Region, so a
   * second stage (or an address verified by hand) must leave it off: creating it again fails with AlreadyExists.
   */
  createMailIdentity: boolean;
  /** Send Cognito's e-mails (verification, password reset) through SES from mailFrom, once verified. */
  cognitoEmailViaSes: boolean;
  adminEmails: string[];
  /** Google as an identity provider when set, with the client secret read from Secrets Manager. */
  googleClientId?: string;
  googleClientSecretName: string;
  /** Prefix of the Cognito hosted-UI domain used by Google sign-in (unique per region). */
  authDomainPrefix?: string;
  stripePublishableKey?: string;
  /** SHA-256 hex of the 'Coming Soon' gate password; absent means no gate. */
  siteGatePasswordHash?: string;
  alarmEmail: string;
  apiRateLimit: number;
  apiBurstLimit: number;
  renderCpu: number;
  renderMemoryMiB: number;
  renderArchitecture: 'x86_64' | 'arm64';
  /** The render farm's ceiling: vCPUs of all workers at once (per compute environment). */
  renderMaxVcpus: number;
  /** The built web app (`npm run build:web`), relative to the repository root or absolute. */
  webDistDir: string;
  /** Executions reserved for the render function (the fast path): chunks rendering at once; 0 makes no render function (Batch only). */
  renderFunctionConcurrency: number;
  /**
   * A CloudFront-scope AWS WAF web ACL (made in us-east-1) for the distribution. Without
   * it the stack makes its own, which it can only do when deployed in us-east-1.
   */
  wafWebAclArn?: string;
  /** Deploy outside us-east-1 with no web ACL: an explicit choice, never the default. */
  allowNoWaf: boolean;
  /**
   * The render function's processor: x86_64 by default (DEFAULT_RENDER_FUNCTION_ARCHITECTURE says why); arm64
   * (Graviton) has Lambda's lower GB-second rate, and its image is built for it (Debian's Blender, ffmpeg and
   * onnxruntime-node's CPU library all ship for arm64). The Batch tasks keep renderArchitecture.
   */
  renderFunctionArchitecture: 'x86_64' | 'arm64';
  /**
   * Environments of the preview function kept initialised (provisioned concurrency): 0 by default,
   * nothing runs or is billed while idle; each one kept costs its memory's provisioned rate all month.
   */
  previewProvisionedConcurrency: number;
  /**
   * SnapStart on the render and preview functions (on by default): their published versions are restored from a
   * snapshot taken after Init started a warm scene server per scene, so no chunk or preview pays Blender's start; each
   * function's /tmp is then 512 MB. Its snapshot cache is billed while a version is active (npm run costs prints it);
   * false keeps the idle cost under $12 a month. Not with previewProvisionedConcurrency (SnapStart does not support it).
   */
  snapStart: boolean;
  /** Executions reserved for the media probe: uploads measured at once, across every user. */
  probeConcurrency: number;
  /** Executions reserved for the live previews: previews rendering at once, across every customer. */
  previewConcurrency: number;
  /**
   * The account's Lambda concurrency in the target Region, as the deployer states it (Service Quotas, "Concurrent
   * executions"); AWS's default quota when not stated. Synth refuses a stack whose reservations do not fit it.
   */
  accountConcurrency: number;
  /** The most memory the account allows a function, as stated (10,240 MB unless the account is new: then about 3,008). */
  accountFunctionMemoryMiB: number;
  /** The Region the CLI targets, when it knows it (CDK_DEFAULT_REGION); nothing is looked up. */
  region?: string;
}

/** Context keys and their defaults, so `cdk.json` and the README can list them from one place. */
export const settingDefaults = {
  stage: 'prod',
  supportEmail: 'support@example.com',
  ownerEmail: 'owner@example.com',
  mailFrom: 'no-reply@example.com',
  cognitoEmailViaSes: false,
  adminEmails: '',
  googleClientSecretName: 'cloud-render/google-client-secret',
  apiRateLimit: 50,
  apiBurstLimit: 100,
  renderCpu: 2048,
  renderMemoryMiB: 4096,
  renderArchitecture: 'x86_64',
  renderMaxVcpus: 256,
  renderFunctionConcurrency: DEFAULT_FAST_PATH_CONCURRENCY,
  renderFunctionArchitecture: DEFAULT_RENDER_FUNCTION_ARCHITECTURE,
  webDistDir: 'web/dist',
  allowNoWaf: false,
  previewProvisionedConcurrency: 0,
  snapStart: true,
  createMailIdentity: true,
  probeConcurrency: 20,
  previewConcurrency: 20,
  // AWS's default "Concurrent executions" quota per Region, and Lambda's largest function.
  accountConcurrency: 1000,
  accountFunctionMemoryMiB: 10240,
} as const;

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/;

export class SettingsError extends Error {
  constructor(key: string, problem: string) {
    super(`CDK context '${key}' ${problem}`);
    this.name = 'SettingsError';
  }
}

type Context = Pick<Node, 'tryGetContext'>;

function text(node: Context, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new SettingsError(key, 'must be a string');
  }
  const trimmed = String(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

function email(node: Context, key: string, fallback: string): string {
  const value = text(node, key) ?? fallback;
  if (!EMAIL.test(value)) throw new SettingsError(key, `must be an e-mail address, got '${value}'`);
  return value;
}

function integer(node: Context, key: string, fallback: number, allowed?: readonly number[], least = 1): number {
  const raw = text(node, key);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < least) throw new SettingsError(key, least === 0 ? `must be 0 or a positive integer, got '${raw}'` : `must be a positive integer, got '${raw}'`);
  if (allowed && !allowed.includes(value)) throw new SettingsError(key, `must be one of ${allowed.join(', ')}, got ${value}`);
  return value;
}

function flag(node: Context, key: string, fallback: boolean): boolean {
  const raw = text(node, key);
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(key, `must be true or false, got '${raw}'`);
}

/** A list given as a JSON array in cdk.json or as a comma-separated string with -c. */
function emailList(node: Context, key: string): string[] {
  const value: unknown = node.tryGetContext(key);
  const items = Array.isArray(value) ? value.map(String) : (text(node, key) ?? '').split(',');
  const emails = items.map((item) => item.trim().toLowerCase()).filter(Boolean);
  for (const item of emails) if (!EMAIL.test(item)) throw new SettingsError(key, `contains '${item}', which is not an e-mail address`);
  return emails;
}

/**
 * Reads and checks the settings. `region` is the region `cdk deploy` (or synth) targets
 * when the CLI knows it from the local profile (CDK_DEFAULT_REGION; nothing is looked
 * up): there a site without a web ACL is refused unless chosen.
 */
export function readSettings(node: Context, region?: string): DeploySettings {
  const stage = text(node, 'stage') ?? settingDefaults.stage;
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) throw new SettingsError('stage', 'must be lower-case letters, digits and dashes (at most 20)');

  const siteDomain = text(node, 'siteDomain')?.toLowerCase();
  if (siteDomain !== undefined && !HOST.test(siteDomain)) throw new SettingsError('siteDomain', `must be a host name, got '${siteDomain}'`);
  const certificateArn = text(node, 'certificateArn');
  if (siteDomain && !certificateArn?.startsWith('arn:')) {
    throw new SettingsError('certificateArn', 'must be the ARN of an ACM certificate in us-east-1 covering siteDomain when siteDomain is set');
  }
  // CloudFront takes certificates from us-east-1 only: another Region's passes synth and fails at CloudFront, mid-deploy.
  if (siteDomain && certificateArn && !/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/.test(certificateArn)) {
    const certificateRegion = /^arn:[\w-]+:acm:([\w-]+):/.exec(certificateArn)?.[1];
    throw new SettingsError(
      'certificateArn',
      certificateRegion && certificateRegion !== 'us-east-1'
        ? `is an ACM certificate in ${certificateRegion}, but CloudFront uses certificates from us-east-1 only: request or import the certificate for ${siteDomain} in us-east-1 and pass its ARN`
        : `must be the ARN of an ACM certificate in us-east-1 (arn:aws:acm:us-east-1:<account>:certificate/<id>), got '${certificateArn}'`,
    );
  }

  const siteGatePasswordHash = text(node, 'siteGatePasswordHash')?.toLowerCase();
  if (siteGatePasswordHash !== undefined && !/^[0-9a-f]{64}$/.test(siteGatePasswordHash)) {
    throw new SettingsError('siteGatePasswordHash', 'must be the SHA-256 of the password in hex (64 characters)');
  }

  const authDomainPrefix = text(node, 'authDomainPrefix');
  if (authDomainPrefix !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(authDomainPrefix)) {
    throw new SettingsError('authDomainPrefix', 'must be lower-case letters, digits and dashes');
  }

  const architecture = (key: 'renderArchitecture' | 'renderFunctionArchitecture') => {
    const value = text(node, key) ?? settingDefaults[key];
    if (value !== 'x86_64' && value !== 'arm64') throw new SettingsError(key, `must be x86_64 or arm64, got '${value}'`);
    return value;
  };
  const renderArchitecture = architecture('renderArchitecture');

  const wafWebAclArn = text(node, 'wafWebAclArn');
  if (wafWebAclArn !== undefined && !/^arn:[\w-]+:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]+\/[\w-]+$/.test(wafWebAclArn)) {
    throw new SettingsError('wafWebAclArn', `must be the ARN of a CloudFront (global) web ACL in us-east-1, got '${wafWebAclArn}'`);
  }
  const allowNoWaf = flag(node, 'allowNoWaf', settingDefaults.allowNoWaf);
  if (region && region !== 'us-east-1' && !wafWebAclArn && !allowNoWaf) {
    throw new SettingsError(
      'wafWebAclArn',
      `is needed in ${region}: AWS WAF for CloudFront exists only in us-east-1, so this stack can make its web ACL only there. ` +
        'Pass -c wafWebAclArn=<ARN of a CloudFront web ACL made in us-east-1>, or -c allowNoWaf=true to deploy without WAF (docs/security.md says what still holds).',
    );
  }

  const provisioned = text(node, 'previewProvisionedConcurrency');
  const previewProvisionedConcurrency = provisioned === undefined ? settingDefaults.previewProvisionedConcurrency : Number(provisioned);
  if (!Number.isInteger(previewProvisionedConcurrency) || previewProvisionedConcurrency < 0 || previewProvisionedConcurrency > 10) {
    throw new SettingsError('previewProvisionedConcurrency', `must be an integer from 0 to 10, got '${provisioned}'`);
  }

  const previewConcurrency = integer(node, 'previewConcurrency', settingDefaults.previewConcurrency);
  // Lambda keeps provisioned environments inside the function's reservation.
  if (previewProvisionedConcurrency > previewConcurrency) {
    throw new SettingsError('previewProvisionedConcurrency', `must be at most previewConcurrency (${previewConcurrency}), got ${previewProvisionedConcurrency}`);
  }

  const snapStart = flag(node, 'snapStart', settingDefaults.snapStart);
  if (snapStart && previewProvisionedConcurrency > 0) {
    throw new SettingsError('previewProvisionedConcurrency', `must be 0 while snapStart is on (SnapStart does not support provisioned concurrency), got ${previewProvisionedConcurrency}: pass -c snapStart=false to keep environments provisioned`);
  }

  const ownerEmail = email(node, 'ownerEmail', settingDefaults.ownerEmail);
  return {
    previewProvisionedConcurrency,
    snapStart,
    probeConcurrency: integer(node, 'probeConcurrency', settingDefaults.probeConcurrency),
    previewConcurrency,
    accountConcurrency: integer(node, 'accountConcurrency', settingDefaults.accountConcurrency),
    accountFunctionMemoryMiB: integer(node, 'accountFunctionMemoryMiB', settingDefaults.accountFunctionMemoryMiB),
    createMailIdentity: flag(node, 'createMailIdentity', settingDefaults.createMailIdentity),
    ...(region ? { region } : {}),
    stage,
    stackName: `cloud-render-${stage}`,
    siteDomain,
    certificateArn: siteDomain ? certificateArn : undefined,
    supportEmail: email(node, 'supportEmail', settingDefaults.supportEmail),
    ownerEmail,
    mailFrom: email(node, 'mailFrom', settingDefaults.mailFrom),
    cognitoEmailViaSes: flag(node, 'cognitoEmailViaSes', settingDefaults.cognitoEmailViaSes),
    adminEmails: emailList(node, 'adminEmails'),
    googleClientId: text(node, 'googleClientId'),
    googleClientSecretName: text(node, 'googleClientSecretName') ?? settingDefaults.googleClientSecretName,
    authDomainPrefix,
    stripePublishableKey: text(node, 'stripePublishableKey'),
    siteGatePasswordHash,
    alarmEmail: email(node, 'alarmEmail', ownerEmail),
    apiRateLimit: integer(node, 'apiRateLimit', settingDefaults.apiRateLimit),
    apiBurstLimit: integer(node, 'apiBurstLimit', settingDefaults.apiBurstLimit),
    // Fargate accepts only these CPU sizes; memory is checked against them by CDK.
    renderCpu: integer(node, 'renderCpu', settingDefaults.renderCpu, [1024, 2048, 4096, 8192, 16384]),
    renderMemoryMiB: integer(node, 'renderMemoryMiB', settingDefaults.renderMemoryMiB),
    renderArchitecture,
    renderMaxVcpus: integer(node, 'renderMaxVcpus', settingDefaults.renderMaxVcpus),
    renderFunctionConcurrency: integer(node, 'renderFunctionConcurrency', settingDefaults.renderFunctionConcurrency, undefined, 0),
    renderFunctionArchitecture: architecture('renderFunctionArchitecture'),
    webDistDir: text(node, 'webDistDir') ?? settingDefaults.webDistDir,
    wafWebAclArn,
    allowNoWaf,
  };
}
