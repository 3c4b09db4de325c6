/**
 * Cost on paper: what one render costs us on AWS against what the price calculator
 * charges, for a Full-HD still and a Full-HD animation of every scene, and what an
 * idle deployment costs per month.
 *
 *   npm run costs              prints the tables (Markdown)
 *   npm run costs -- --write   also rewrites them inside docs/costs.md
 *
 * Render times come from the calculator's own estimate (quoteRender) for Batch and
 * from the render manifest's measured frame costs for the fast path, scenes and
 * prices from the catalogue, the task size from the deploy settings' defaults and
 * the idle inventory from the synthesised stack, so the tables follow the code.
 */
import { PREVIEW_MEMORY_MB } from '#infra/constructs/live-previews';
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { scenes, type RenderMode, type Scene } from '#shared/catalogue';
import { FPS } from '#shared/frames';
import { isMediaDriven, quoteRender } from '#shared/pricing';
import { DEFAULT_FAST_PATH_CONCURRENCY, DEFAULT_RENDER_FUNCTION_ARCHITECTURE, FUNCTION_START_SECONDS, planForFastPath, RENDER_FUNCTION, type RenderEngine } from '#shared/fast-path';
import { fromRoot } from '#infra/paths';
import { readSettings, settingDefaults } from '#infra/settings';
import { CloudRenderStack } from '#infra/stack';
import { scheduledJobs } from '#infra/schedules';
import { eventBridgeSchedule } from '#infra/constructs/schedules';

/**
 * AWS list prices, us-east-1, in USD, as published in January 2025 (Fargate since
 * 2019, Lambda arm64 since 2021, public IPv4 since February 2024, DynamoDB on-demand
 * since November 2024). Written from the price pages, not fetched: re-check them
 * before relying on a figure. Free tiers are left out on purpose.
 */
export const AWS_PRICES = {
  date: '2025-01',
  region: 'us-east-1',
  fargateVcpuHour: 0.04048,
  fargateGbHour: 0.004445,
  /** Fargate Spot floats by the hour; AWS advertises up to 70 % off. Assumed: 70 % off. */
  fargateSpotFactor: 0.3,
  publicIpv4Hour: 0.005,
  lambdaArmGbSecond: 0.0000133334,
  lambdaX86GbSecond: 0.0000166667,
  lambdaPerMillionRequests: 0.2,
  httpApiPerMillionRequests: 1.0,
  dynamoPerMillionWrites: 0.625,
  dynamoPerMillionReads: 0.125,
  s3GbMonth: 0.023,
  s3PerThousandPuts: 0.005,
  s3PerThousandGets: 0.0004,
  transferOutGb: 0.09,
  logsIngestGb: 0.5,
  ecrGbMonth: 0.1,
  secretMonth: 0.4,
  /** Per metric an alarm reads (a metric-math alarm pays for each metric in it). */
  alarmMonth: 0.1,
  /** Beyond the account's first three dashboards of up to 50 metrics each, which are free. */
  dashboardMonth: 3,
  wafWebAclMonth: 5,
  wafRuleMonth: 1,
  /** $0.045 an hour, before its data processing charge. */
  natGatewayMonth: 32.85,
  /**
   * SnapStart (Lambda pricing, SnapStart section; Lambda developer guide, "Improving startup performance with Lambda
   * SnapStart", pricing): the snapshot cache per GB of the function's memory, per second a version with SnapStart is
   * active (at least 3 hours), and each restore per GB of memory. Published for Python and .NET; assumed to apply to a
   * container image function as well (the pessimistic reading: Java pays neither).
   */
  snapStartCacheGbSecond: 0.0000015046,
  snapStartRestoreGb: 0.0001397998,
} as const;

/**
 * How a render uses AWS, beyond the calculator's minutes. Assumptions, each stated:
 * the worker's image pull and Blender start are billed (Fargate bills from the pull);
 * an animation adds one finishing task; the worker writes a heartbeat every 5 s and one
 * update per frame; the job page polls every 3 s while the render runs; frames are
 * PNG and stay in the outputs bucket with the video (no expiry on outputs).
 */
export const USAGE = {
  vcpu: settingDefaults.renderCpu / 1024,
  memoryGb: settingDefaults.renderMemoryMiB / 1024,
  taskStartMinutes: 1,
  finishMinutes: 0.5,
  heartbeatsPerMinute: 12,
  writeUnitsPerUpdate: 2,
  fixedUpdates: 10,
  pollsPerMinute: 20,
  readUnitsPerPoll: 4,
  lambdaSecondsPerCall: 0.1,
  lambdaMemoryGb: 0.5,
  fullHdPngMb: 4,
  videoMbPerSecond: 1.5,
  logKbPerFrame: 2,
  imageGb: 1.5,
  /** A Full-HD Text Animation final frame, measured on 2 cores before the denoising work (docs/costs.md). */
  measuredTextFrameSeconds: 186,
} as const;

const FULL_HD = { resolutionX: 1920, resolutionY: 1080 };
const ANIMATION_FRAMES = 120;

export interface RenderCost {
  scene: Scene;
  mode: RenderMode;
  frames: number;
  renderMinutes: number;
  fargateSpot: number;
  fargateOnDemand: number;
  other: number;
  price: number;
}

/** Dollars of Fargate for some task-minutes of the configured size, at on-demand prices. */
const fargateOnDemand = (taskMinutes: number) => (taskMinutes / 60) * (USAGE.vcpu * AWS_PRICES.fargateVcpuHour + USAGE.memoryGb * AWS_PRICES.fargateGbHour);

/** Everything but Fargate's vCPU and memory for one render of `renderMinutes` producing `frames`. */
function otherCosts(renderMinutes: number, frames: number, taskMinutes: number, mode: RenderMode): number {
  const p = AWS_PRICES;
  const watchedMinutes = renderMinutes + USAGE.taskStartMinutes;
  const writes = (USAGE.heartbeatsPerMinute * renderMinutes + frames + USAGE.fixedUpdates) * USAGE.writeUnitsPerUpdate;
  const polls = USAGE.pollsPerMinute * watchedMinutes;
  const dynamo = (writes * p.dynamoPerMillionWrites + polls * USAGE.readUnitsPerPoll * p.dynamoPerMillionReads) / 1e6;
  const api = (polls * (p.httpApiPerMillionRequests + p.lambdaPerMillionRequests)) / 1e6 + polls * USAGE.lambdaSecondsPerCall * USAGE.lambdaMemoryGb * p.lambdaArmGbSecond;
  const videoMb = mode === 'animation' ? (frames / FPS) * USAGE.videoMbPerSecond : 0;
  const storedGb = (frames * USAGE.fullHdPngMb + videoMb) / 1024;
  const downloadGb = (mode === 'animation' ? videoMb : USAGE.fullHdPngMb) / 1024;
  const s3 = storedGb * p.s3GbMonth + ((frames + 3) * p.s3PerThousandPuts + 2 * p.s3PerThousandGets) / 1000;
  const transfer = downloadGb * p.transferOutGb;
  const logs = ((frames * USAGE.logKbPerFrame) / 1024 / 1024) * p.logsIngestGb;
  const ipv4 = (taskMinutes / 60) * p.publicIpv4Hour;
  return dynamo + api + s3 + transfer + logs + ipv4;
}

/** The calculator's quote for a Full-HD render of the scene; media-driven scenes take their frame count from the media: 120 frames is 4 s at 30 fps. */
export function fullHdQuote(scene: Scene, mode: RenderMode) {
  return quoteRender(scene, { mode, ...FULL_HD, ...(isMediaDriven(scene) ? { mediaDurationSeconds: ANIMATION_FRAMES / FPS } : {}) });
}

export function renderCost(scene: Scene, mode: RenderMode, renderMinutesOverride?: number): RenderCost {
  const quote = fullHdQuote(scene, mode);
  const renderMinutes = renderMinutesOverride ?? quote.estimatedRenderTimeMinutes;
  const taskMinutes = renderMinutes + USAGE.taskStartMinutes + (mode === 'animation' ? USAGE.finishMinutes + USAGE.taskStartMinutes : 0);
  const onDemand = fargateOnDemand(taskMinutes);
  return {
    scene,
    mode,
    frames: quote.frames,
    renderMinutes,
    fargateSpot: onDemand * AWS_PRICES.fargateSpotFactor,
    fargateOnDemand: onDemand,
    other: otherCosts(renderMinutes, quote.frames, taskMinutes, mode),
    price: quote.finalPrice,
  };
}

export interface FastPathCost {
  scene: Scene;
  mode: RenderMode;
  frames: number;
  engine: RenderEngine;
  /** Function seconds, every chunk and the finishing step, and each new environment's billed Init or billed restore. */
  functionSeconds: number;
  /** Lambda's charges (function seconds, requests, and with SnapStart its restores and the render's share of the snapshot cache). */
  x86: number;
  arm64: number;
  /** Of those: SnapStart's restores (per GB restored) and the render's share of the snapshot cache (SNAPSTART_USAGE). */
  restore: number;
  cache: number;
  other: number;
  price: number;
}

/** How the render function's new environments start: Init from the image, or a restore from the SnapStart snapshot (the snapStart setting). */
export type FunctionStart = 'init' | 'snapstart';
export const DEFAULT_FUNCTION_START: FunctionStart = settingDefaults.snapStart ? 'snapstart' : 'init';

/**
 * How a SnapStart render function is billed beyond its chunks, each figure assumed and said so:
 * - billedRestoreSeconds: the REPORT's "Billed Restore Duration" ("The time it takes for Lambda to load the runtime and
 *   run any after-restore hooks. You are not charged for the time it takes to restore a snapshot", Lambda developer
 *   guide, "Monitoring for Lambda SnapStart"); the runtime is the one Init left running and the hook seeds seven
 *   parents (milliseconds here): 0.7 s taken, the whole restore a container image was measured to take by a third
 *   party (673-693 ms, 327 MB image), so no part of it is assumed away;
 * - rendersPerMonth: the snapshot cache is billed per second a version is active whatever the volume (scripts' idle
 *   cost); a render's share of it is the month's cache over this many renders: 1,000 a month, assumed.
 */
export const SNAPSTART_USAGE = { billedRestoreSeconds: 0.7, rendersPerMonth: 1000 } as const;

/** GB-seconds of a month (30 days). */
const MONTH_SECONDS = 30 * 86_400;

/** The snapshot cache of the render and preview functions for a month, their memory as the stack makes them (idleCosts' figure). */
export const snapshotCacheMonth = (memoryMiB: number[]) => memoryMiB.reduce((sum, mib) => sum + (mib / 1024) * AWS_PRICES.snapStartCacheGbSecond * MONTH_SECONDS, 0);

/** Seconds the finishing step of an animation runs on the function (segments joined, formats derived, stored): assumed. */
export const FINISHING_FUNCTION_SECONDS = 15;

/**
 * Lambda bills the Init phase of every environment it starts, a container image's included ("AWS Lambda
 * standardizes billing for INIT Phase", AWS Compute Blog, April 2025: from 1 August 2025 Init is billed as
 * the invocation's duration is). A render's chunks start up to the reserved concurrency's environments cold;
 * each is taken at Init's 10-s limit (FUNCTION_START_SECONDS), an upper bound: a warm environment pays none.
 */
export const billedInitSeconds = (chunks: number) => Math.min(chunks, DEFAULT_FAST_PATH_CONCURRENCY) * FUNCTION_START_SECONDS;

/**
 * A Full-HD render on the fast path: which engine takes it, and on the function its
 * GB-seconds at Lambda's x86 and arm64 rates (the function runs on arm64 unless the
 * renderFunctionArchitecture deploy setting says x86_64). frameSeconds: one frame on the function's 6 vCPU,
 * from the render manifest unless a caller (bench:delivery) has a better figure.
 */
export function fastPathCost(scene: Scene, mode: RenderMode, frameSeconds?: number, billedSeconds?: number, start: FunctionStart = DEFAULT_FUNCTION_START): FastPathCost {
  const quote = fullHdQuote(scene, mode);
  const plan = planForFastPath({ sceneId: scene.id, ...FULL_HD, totalFrames: quote.frames, isStill: mode === 'still' });
  const perFrame = frameSeconds ?? plan.frameSeconds;
  const memoryGb = RENDER_FUNCTION.memoryMiB / 1024;
  // Each environment the render's chunks start: Init billed up to its limit, or a restore (its billed part, and per GB restored).
  const environments = Math.min(plan.chunks.length, DEFAULT_FAST_PATH_CONCURRENCY);
  const startSeconds = start === 'init' ? billedInitSeconds(plan.chunks.length) : environments * SNAPSTART_USAGE.billedRestoreSeconds;
  const restore = start === 'init' ? 0 : environments * memoryGb * AWS_PRICES.snapStartRestoreGb;
  const cache = start === 'init' ? 0 : snapshotCacheMonth([RENDER_FUNCTION.memoryMiB]) / SNAPSTART_USAGE.rendersPerMonth;
  // A caller that simulates the render (bench:delivery: each band's chunks, page-ins and finishing step) knows its billed seconds better.
  const functionSeconds = (billedSeconds ?? quote.frames * perFrame + (mode === 'animation' ? FINISHING_FUNCTION_SECONDS : 0)) + startSeconds;
  const gbSeconds = functionSeconds * memoryGb;
  const requests = ((plan.chunks.length + 1) * AWS_PRICES.lambdaPerMillionRequests) / 1e6;
  const renderMinutes = functionSeconds / 60;
  return {
    scene,
    mode,
    frames: quote.frames,
    engine: plan.engine,
    functionSeconds,
    x86: gbSeconds * AWS_PRICES.lambdaX86GbSecond + requests + restore + cache,
    arm64: gbSeconds * AWS_PRICES.lambdaArmGbSecond + requests + restore + cache,
    restore,
    cache,
    other: otherCosts(renderMinutes, quote.frames, 0, mode),
    price: quote.finalPrice,
  };
}

export function fastPathCosts(frameSeconds?: (scene: Scene) => number, billedSeconds?: (scene: Scene, mode: RenderMode) => number | undefined, start: FunctionStart = DEFAULT_FUNCTION_START): FastPathCost[] {
  return scenes.flatMap((scene) => scene.supportsModes.map((mode) => fastPathCost(scene, mode, frameSeconds?.(scene), billedSeconds?.(scene, mode), start)));
}

export function renderCosts(): RenderCost[] {
  return scenes.flatMap((scene) => scene.supportsModes.map((mode) => renderCost(scene, mode)));
}

/** Monthly invocations of an EventBridge schedule expression: rate(N minutes) or a daily cron. */
function invocationsPerMonth(expression: string): number {
  const rate = /^rate\((\d+) minutes?\)$/.exec(expression);
  if (rate) return (30 * 24 * 60) / Number(rate[1]);
  const cron = /^cron\((\d+) (\d+) \* \* \? \*\)$/.exec(expression);
  if (cron) return 30;
  throw new Error(`cannot count invocations of ${expression}`);
}

export interface IdleLine {
  item: string;
  count: number;
  monthly: number;
  note: string;
}

/** What the stack costs per month with no visitor and no render, read from the synthesised template (`context`: deploy settings, as `-c`). */
export function idleCosts(context: Record<string, string> = {}): IdleLine[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const settings = readSettings(app.node);
  const template = Template.fromStack(new CloudRenderStack(app, settings.stackName, { settings }));
  const count = (type: string) => Object.keys(template.findResources(type)).length;
  const p = AWS_PRICES;
  const scheduled = scheduledJobs.map((job) => invocationsPerMonth(eventBridgeSchedule(job.period).expressionString)).reduce((a, b) => a + b, 0);
  const lambdaScheduled = scheduled * ((p.lambdaPerMillionRequests / 1e6) + 0.3 * USAGE.lambdaMemoryGb * p.lambdaArmGbSecond);
  const alarmMetrics = Object.values(template.findResources('AWS::CloudWatch::Alarm')).reduce(
    (sum, alarm) => sum + ((alarm.Properties.Metrics as { MetricStat?: unknown }[] | undefined)?.filter((metric) => metric.MetricStat).length ?? 1),
    0,
  );
  // SnapStart's snapshot cache, per function that has it (its memory as made), while its published version is active.
  const snapStarted = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.SnapStart?.ApplyOn === 'PublishedVersions');
  const cacheMonth = snapshotCacheMonth(snapStarted.map((fn) => Number(fn.Properties.MemorySize)));
  const lines: IdleLine[] = [
    { item: 'NAT gateways', count: count('AWS::EC2::NatGateway'), monthly: count('AWS::EC2::NatGateway') * p.natGatewayMonth, note: 'none: render tasks use public subnets and free S3/DynamoDB gateway endpoints' },
    { item: 'Always-on compute (ECS services, EC2 instances, load balancers)', count: count('AWS::ECS::Service') + count('AWS::EC2::Instance') + count('AWS::ElasticLoadBalancingV2::LoadBalancer'), monthly: 0, note: 'none: Fargate tasks run only while a job renders' },
    { item: 'CloudWatch alarm metrics', count: alarmMetrics, monthly: alarmMetrics * p.alarmMonth, note: `$${p.alarmMonth} per metric an alarm reads, a month (${count('AWS::CloudWatch::Alarm')} alarms)` },
    { item: 'CloudWatch dashboard', count: count('AWS::CloudWatch::Dashboard'), monthly: 0, note: `free as one of the account's first three (up to 50 metrics each); $${p.dashboardMonth} a month otherwise` },
    { item: 'Business metrics (EMF) and X-Ray traces', count: 0, monthly: 0, note: 'billed per metric that receives data and per trace recorded: nothing while idle' },
    { item: 'Secrets Manager secrets', count: count('AWS::SecretsManager::Secret'), monthly: count('AWS::SecretsManager::Secret') * p.secretMonth, note: `$${p.secretMonth} per secret-month (the Stripe keys and the CloudFront origin header; Google's adds one more)` },
    { item: 'AWS WAF web ACL', count: count('AWS::WAFv2::WebACL'), monthly: count('AWS::WAFv2::WebACL') * (p.wafWebAclMonth + 2 * p.wafRuleMonth), note: `$${p.wafWebAclMonth} per web ACL-month plus $${p.wafRuleMonth} per rule (the per-IP rate rule, the managed common rule set); elsewhere the ACL given as wafWebAclArn (made in us-east-1, the same price), or none with allowNoWaf` },
    { item: 'Scheduled Lambda invocations', count: scheduled, monthly: lambdaScheduled, note: 'stale-job sweep every minute plus daily jobs, ~0.3 s at 512 MB each (inside the Lambda free tier in practice)' },
    { item: 'Render image in ECR', count: 1, monthly: USAGE.imageGb * p.ecrGbMonth, note: `~${USAGE.imageGb} GB (Debian, Blender, ffmpeg, Node) at $${p.ecrGbMonth}/GB-month` },
    {
      item: 'SnapStart snapshot cache',
      count: snapStarted.length,
      monthly: cacheMonth,
      note: snapStarted.length
        ? `the render and preview functions' published versions (${snapStarted.map((fn) => `${fn.Properties.MemorySize} MB`).join(', ')}) at $${p.snapStartCacheGbSecond} per GB-second while active, idle or not: what takes Blender's start, the scene build and Init off every chunk and preview; the snapStart setting false removes it (and keeps the total under $12)`
        : 'none: the snapStart setting is false (every new environment runs Init)',
    },
    { item: 'DynamoDB, S3, Cognito, CloudFront, HTTP API at rest', count: 1, monthly: 0, note: 'billed per request or per GB stored; an empty deployment stores a few MB' },
  ];
  return lines;
}

const usd = (amount: number) => (amount === 0 ? '$0' : amount < 1 ? `$${amount.toFixed(3)}` : `$${amount.toFixed(2)}`);

export function costTables(): string {
  const p = AWS_PRICES;
  const rows = renderCosts();
  const out: string[] = [];
  out.push(`Unit prices (${p.region}, as of ${p.date}): Fargate $${p.fargateVcpuHour}/vCPU-hour and $${p.fargateGbHour}/GB-hour on demand, Spot assumed at ${Math.round(p.fargateSpotFactor * 100)} % of that; ` +
    `public IPv4 $${p.publicIpv4Hour}/hour; Lambda arm64 $${p.lambdaArmGbSecond}/GB-second and $${p.lambdaPerMillionRequests}/million requests; HTTP API $${p.httpApiPerMillionRequests}/million; ` +
    `DynamoDB on demand $${p.dynamoPerMillionWrites}/million writes and $${p.dynamoPerMillionReads}/million reads; S3 $${p.s3GbMonth}/GB-month, $${p.s3PerThousandPuts}/1,000 PUTs, $${p.s3PerThousandGets}/1,000 GETs; ` +
    `transfer out $${p.transferOutGb}/GB; CloudWatch Logs $${p.logsIngestGb}/GB. AWS Batch adds no charge of its own: only the Fargate tasks it starts are billed.`);
  out.push('');
  out.push(`Task size: ${USAGE.vcpu} vCPU, ${USAGE.memoryGb} GB (the deploy defaults). Resolution 1920x1080. Animations have 120 frames (4 s of media for the sound scenes) unless the scene sets its own length (Image Balls: 250). "Other" is DynamoDB, Lambda and HTTP API (the job page's polling), S3 (frames and video kept one month, PUTs), one download, logs and the task's public IPv4.`);
  out.push('');
  out.push('| scene | render | frames | minutes (calculator) | Fargate Spot | Fargate on demand | other | cost, Spot | cost, on demand | price charged | price / cost (on demand) |');
  out.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const spot = row.fargateSpot + row.other;
    const onDemand = row.fargateOnDemand + row.other;
    out.push(`| ${row.scene.title} | ${row.mode} | ${row.frames} | ${row.renderMinutes.toFixed(2)} | ${usd(row.fargateSpot)} | ${usd(row.fargateOnDemand)} | ${usd(row.other)} | ${usd(spot)} | ${usd(onDemand)} | ${usd(row.price)} | ${(row.price / onDemand).toFixed(1)}x |`);
  }
  out.push('');
  const startText = DEFAULT_FUNCTION_START === 'init'
    ? `${FUNCTION_START_SECONDS} s of billed Init for each environment its chunks start (up to the reserved concurrency)`
    : `for each environment its chunks start (up to the reserved concurrency) a SnapStart restore: ${SNAPSTART_USAGE.billedRestoreSeconds} s of billed restore (assumed) and $${p.snapStartRestoreGb} per GB restored, plus the render's share of the snapshot cache (a month's cache of the render function over ${SNAPSTART_USAGE.rendersPerMonth.toLocaleString('en-US')} renders, assumed)`;
  out.push(`The fast path (render function, ${RENDER_FUNCTION.memoryMiB} MB, ${RENDER_FUNCTION.vcpus} vCPU): one frame's time from the render manifest's measured cost spread over ${RENDER_FUNCTION.vcpus} vCPU, every chunk plus ${FINISHING_FUNCTION_SECONDS} s of finishing for an animation and ${startText}, at Lambda's x86 $${p.lambdaX86GbSecond} and arm64 $${p.lambdaArmGbSecond} per GB-second (the function deploys on ${DEFAULT_RENDER_FUNCTION_ARCHITECTURE} by default: setting renderFunctionArchitecture); "other" as above. A render whose single frame would not end safely inside the function's limit goes to Batch (the table above).`);
  out.push('');
  out.push('| scene | render | frames | engine | function seconds | cost, x86 | cost, arm64 | other | price charged | cost / price (x86) | cost / price (arm64) |');
  out.push('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of fastPathCosts()) {
    const share = (lambda: number) => `${(((lambda + row.other) / row.price) * 100).toFixed(1)} %`;
    out.push(`| ${row.scene.title} | ${row.mode} | ${row.frames} | ${row.engine} | ${row.functionSeconds.toFixed(0)} | ${usd(row.x86)} | ${usd(row.arm64)} | ${usd(row.other)} | ${usd(row.price)} | ${share(row.x86)} | ${share(row.arm64)} |`);
  }
  out.push('');
  const text = scenes.find((scene) => scene.slug === 'text-animation')!;
  const quoted = renderCost(text, 'animation');
  const measuredMinutes = (quoted.frames * USAGE.measuredTextFrameSeconds) / 60;
  const measured = renderCost(text, 'animation', measuredMinutes);
  out.push(`Check against a measurement: a Full-HD Text Animation frame took ~${USAGE.measuredTextFrameSeconds} s on 2 cores (before the denoising work). ` +
    `At that rate its ${quoted.frames}-frame animation renders for ${measuredMinutes.toFixed(0)} minutes, not the calculator's ${quoted.renderMinutes.toFixed(2)}: ` +
    `it would cost ${usd(measured.fargateSpot + measured.other)} on Spot, ${usd(measured.fargateOnDemand + measured.other)} on demand, against ${usd(measured.price)} charged.`);
  out.push('');
  const preview = livePreviewCost();
  out.push(`A live preview (the preview function, ${PREVIEW_MEMORY_MB} MB on ${PREVIEW_ARCHITECTURE}, about ${PREVIEW_SECONDS} s a preview as \`npm run bench:live-preview\` measures a warm one; a kept picture answers identical settings): ` +
    `per thousand previews, ${perThousand(preview.function)} of function time, ${perThousand(preview.requests)} of requests (the API's function, the preview's Invoke, HTTP API) and ${perThousand(preview.storage)} to look for and keep the picture: ${perThousand(preview.total)}. ` +
    `Nothing runs while idle; each environment kept warm with the previewProvisionedConcurrency setting (0 by default) would add about ${usd(preview.provisionedMonth)} a month.`);
  out.push('');
  const idle = idleCosts();
  out.push('| idle deployment, per month | count | cost | why |');
  out.push('|---|---:|---:|---|');
  for (const line of idle) out.push(`| ${line.item} | ${line.count} | ${usd(line.monthly)} | ${line.note} |`);
  const total = idle.reduce((sum, line) => sum + line.monthly, 0);
  out.push(`| **total** | | **${usd(total)}** | |`);
  const cacheLine = idle.find((line) => line.item === 'SnapStart snapshot cache');
  if (cacheLine && cacheLine.monthly > 0) out.push(`| **total with the snapStart setting false** | | **${usd(total - cacheLine.monthly)}** | |`);
  return out.join('\n');
}

/** A warm live preview's function time, measured locally (npm run bench:live-preview: a forked child on one core, about 0.7 s, plus the server's own work). */
const PREVIEW_SECONDS = 1;
/** Provisioned concurrency's rate (Lambda pricing): per GB-second kept, whether used or not. */
const PROVISIONED_GB_SECOND = { x86_64: 0.0000041667, arm64: 0.0000033334 } as const;
/** The preview function runs on the render function's processor (its image). */
const PREVIEW_ARCHITECTURE = DEFAULT_RENDER_FUNCTION_ARCHITECTURE;

const perThousand = (value: number) => `$${(value * 1000).toFixed(4)}`;

export function livePreviewCost() {
  const p = AWS_PRICES;
  const gb = PREVIEW_MEMORY_MB / 1024;
  const fn = gb * PREVIEW_SECONDS * (PREVIEW_ARCHITECTURE === 'arm64' ? p.lambdaArmGbSecond : p.lambdaX86GbSecond);
  const requests = (2 * p.lambdaPerMillionRequests + p.httpApiPerMillionRequests) / 1e6;
  const storage = p.s3PerThousandGets / 1000 + p.s3PerThousandPuts / 1000;
  return { function: fn, requests, storage, total: fn + requests + storage, provisionedMonth: gb * PROVISIONED_GB_SECOND[PREVIEW_ARCHITECTURE] * 30 * 86_400 };
}

const BEGIN = '<!-- costs:begin (npm run costs -- --write) -->';
const END = '<!-- costs:end -->';

/** The generated part of docs/costs.md, between its markers. */
export function documentedTables(markdown: string): string {
  const start = markdown.indexOf(BEGIN);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/costs.md has no ${BEGIN} ... ${END} section`);
  return markdown.slice(start + BEGIN.length, end).trim();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tables = costTables();
  console.log(tables);
  if (process.argv.includes('--write')) {
    const path = fromRoot('docs/costs.md');
    const markdown = readFileSync(path, 'utf8');
    const start = markdown.indexOf(BEGIN);
    const end = markdown.indexOf(END);
    if (start < 0 || end < start) throw new Error(`docs/costs.md has no ${BEGIN} ... ${END} section`);
    writeFileSync(path, `${markdown.slice(0, start + BEGIN.length)}\n\n${tables}\n\n${markdown.slice(end)}`);
    console.log(`\nWrote the tables into ${path}`);
  }
}
