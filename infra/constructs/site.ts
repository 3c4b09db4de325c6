import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Annotations, Aws, CfnCondition, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { privateBucketProps } from './storage';
import { awsOrigins, contentSecurityPolicy, inlineScriptHashes } from '../content-security-policy';
import { fromRoot } from '../paths';
import type { SiteConfig } from '#shared/site-config';
import { robotsTxt, sitemapXml } from '#shared/site-map';
import { ORIGIN_VERIFY_HEADER } from '#lambdas/lib/origin';
import { CROSS_SITE_GUARD_SOURCE } from '#shared/cross-site';

export interface SiteProps {
  /** Host name of the HTTP API, served under /api/* so the browser talks to one origin. */
  apiDomainName: string;
  /** Sent to the API as ORIGIN_VERIFY_HEADER on every /api/* request; the API refuses requests without it. */
  originVerifyValue: string;
  siteDomain?: string;
  certificateArn?: string;
  /** A CloudFront web ACL made in us-east-1; without it the stack makes its own when deployed there. */
  wafWebAclArn?: string;
  /** The built web app (settings' webDistDir): its index.html's inline scripts are hashed into the CSP. */
  webDistDir: string;
}

/** The web app's runtime settings as this stack writes them (Stripe mode, no local endpoints). */
export type WebRuntimeConfig = SiteConfig & { paymentsMode: 'stripe' };

// Paths without a file extension are routes of the single-page app: answer them
// with index.html. Done per request rather than with CloudFront error pages,
// which would also turn the API's own 403/404 answers into index.html.
const SPA_FALLBACK = `
function handler(event) {
  var request = event.request;
  if (!/\\.[A-Za-z0-9]+$/.test(request.uri)) {
    request.uri = '/index.html';
  }
  return request;
}`;

/**
 * Requests one IP may make in any 5 minutes before the WAF blocks it: a page load
 * with its assets is a few dozen, and a job page polls every 3 s, so people stay far
 * below; a script cycling forged headers does not.
 */
export const WAF_REQUESTS_PER_IP_PER_5_MINUTES = 2000;

const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });

/**
 * The site: a private bucket behind CloudFront (origin access control), the SPA
 * fallback, security headers, and the /api/* behaviour to the HTTP API with
 * caching off.
 */
export class Site extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** https://<domain>, without a trailing slash. */
  readonly siteUrl: string;

  constructor(scope: Construct, id: string, props: SiteProps) {
    super(scope, id);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...privateBucketProps,
      // Everything in it is rebuilt by the next deploy.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    const securityHeaders = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Security headers for the site and the API',
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        xssProtection: { protection: true, modeBlock: true, override: true },
        // From what the web app loads (infra/content-security-policy.ts); the inline script's hash from the page deployed.
        contentSecurityPolicy: { contentSecurityPolicy: contentSecurityPolicy(awsOrigins(Aws.REGION), inlineScriptHashes(readFileSync(deployedIndexHtml(props.webDistDir), 'utf8'))), override: true },
      },
    });

    const spaFallback = new cloudfront.Function(this, 'SpaFallback', {
      code: cloudfront.FunctionCode.fromInline(SPA_FALLBACK),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Serves index.html for the routes of the single-page app',
    });

    // A browser request to the API from another site is refused at the edge, before
    // API Gateway's authorizer (or anything else of ours) runs.
    const crossSiteGuard = new cloudfront.Function(this, 'CrossSiteGuard', {
      code: cloudfront.FunctionCode.fromInline(CROSS_SITE_GUARD_SOURCE),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Refuses API requests whose Origin is another site',
    });

    const customDomain =
      props.siteDomain && props.certificateArn
        ? {
            domainNames: [props.siteDomain],
            certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
            // Only a custom certificate lets the distribution refuse old TLS versions.
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {};

    // AWS WAF in front of CloudFront: a per-IP rate rule and AWS's managed common rule
    // set. A web ACL for CloudFront can only live in us-east-1, and the stack's region
    // is chosen at deploy time, so the ACL exists only when the stack is deployed there;
    // elsewhere the operator passes one made in us-east-1 (wafWebAclArn), or chooses to
    // go without (allowNoWaf, checked in infra/settings.ts).
    const webAclId = props.wafWebAclArn ?? this.ownWebAcl();
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      webAclId,
      comment: 'Cloud render: site and API',
      defaultRootObject: 'index.html',
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      ...customDomain,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        compress: true,
        functionAssociations: [{ function: spaFallback, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          // A custom origin header replaces any viewer header of the same name, so a viewer cannot forge it.
          origin: new origins.HttpOrigin(props.apiDomainName, {
            protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originVerifyValue },
          }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          // Every header (Authorization, the payment webhook's signature), query string
          // and cookie, except Host, which API Gateway needs to be its own.
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: securityHeaders,
          functionAssociations: [{ function: crossSiteGuard, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
        },
      },
    });

    this.siteUrl = props.siteDomain ? `https://${props.siteDomain}` : `https://${this.distribution.distributionDomainName}`;
  }

  /** The stack's own web ACL, made only when the stack is deployed in us-east-1. */
  private ownWebAcl(): string {
    const wafRegion = new CfnCondition(this, 'WafRegion', { expression: Fn.conditionEquals(Aws.REGION, 'us-east-1') });
    const webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('cloud-render-site'),
      rules: [
        {
          name: 'RatePerIp',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { limit: WAF_REQUESTS_PER_IP_PER_5_MINUTES, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('cloud-render-rate-per-ip'),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // Its 8 KB body limit would block Stripe's larger webhook events; the API caps bodies itself.
              ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
            },
          },
          visibilityConfig: visibility('cloud-render-common-rules'),
        },
      ],
    });
    webAcl.cfnOptions.condition = wafRegion;
    return Fn.conditionIf(wafRegion.logicalId, webAcl.attrArn, Aws.NO_VALUE).toString();
  }

  /**
   * Uploads the built web app (`webDistDir`, web/dist from `npm run build:web`) and its
   * config.json, then invalidates CloudFront.
   *
   * Hashed files under assets/ are immutable and never pruned, so a browser still
   * holding the previous index.html can load its chunks; the rest (index.html,
   * config.json, public files) is revalidated on every request.
   *
   * Synth must work in a clean clone without a web build, so when web/dist is
   * missing a placeholder page is deployed instead and synth prints a warning.
   */
  deployWebApp(config: WebRuntimeConfig, webDistDir: string): void {
    const dist = distOf(webDistDir);
    const built = existsSync(join(dist, 'index.html'));
    let assets: s3deploy.BucketDeployment | undefined;
    if (built && existsSync(join(dist, 'assets'))) {
      assets = new s3deploy.BucketDeployment(this, 'DeployAssets', {
        destinationBucket: this.bucket,
        destinationKeyPrefix: 'assets/',
        sources: [s3deploy.Source.asset(join(dist, 'assets'))],
        prune: false,
        cacheControl: [s3deploy.CacheControl.fromString('public, max-age=31536000, immutable')],
        memoryLimit: 512,
      });
    }
    if (!built) {
      Annotations.of(this).addWarningV2(
        'cloud-render:web-not-built',
        `${join(webDistDir, 'index.html')} not found: deploying a placeholder page. Run \`npm run build:web\` before \`npx cdk deploy\`.`,
      );
    }
    const page = built
      ? s3deploy.Source.asset(dist, { exclude: ['assets', 'assets/**'] })
      : s3deploy.Source.data('index.html', PLACEHOLDER_PAGE);
    const root = new s3deploy.BucketDeployment(this, 'DeploySite', {
      destinationBucket: this.bucket,
      sources: [
        page,
        s3deploy.Source.jsonData('config.json', config),
        // robots.txt and the sitemap name the site's own address, known at deploy.
        ...(built ? [s3deploy.Source.data('robots.txt', robotsTxt(this.siteUrl)), s3deploy.Source.data('sitemap.xml', sitemapXml(this.siteUrl))] : []),
      ],
      // Keep assets/ out of this deployment's pruning; the one above owns it.
      exclude: ['assets/*'],
      prune: true,
      cacheControl: [s3deploy.CacheControl.fromString('no-cache')],
      distribution: this.distribution,
      distributionPaths: ['/*'],
      memoryLimit: 512,
    });
    if (assets) root.node.addDependency(assets);
  }
}

const distOf = (webDistDir: string) => (isAbsolute(webDistDir) ? webDistDir : fromRoot(webDistDir));

/** The index.html whose inline scripts the CSP allows: the build's, or before a build (a placeholder page is deployed) the source page. */
function deployedIndexHtml(webDistDir: string): string {
  const built = join(distOf(webDistDir), 'index.html');
  return existsSync(built) ? built : fromRoot('web/index.html');
}

const PLACEHOLDER_PAGE = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Not built yet</title>
<p>The web app was not built before this deployment. Run <code>npm run build:web</code>, then <code>npx cdk deploy</code> again.</p>
</html>`;
