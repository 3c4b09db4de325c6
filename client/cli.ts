/**
 * `npm run render -- --scene <slug|id> --text "..." [--still|--animation] [--test] [--wait] [--out DIR]`:
 * a render from the command line, on the typed client. It prints the price before
 * it starts, a progress bar while it waits, and the downloaded files at the end.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CloudRenderError, cloudRenderClient, type Render, type RenderRequest } from './client';

const USAGE = `Usage: npm run render -- --scene <slug|id> [--text "..."] [--still|--animation] [--test] [--wait] [--out DIR]

Renders a scene with the Cloud Render API, paid with the account's credits.

  --scene <slug|id>   the scene (e.g. text-animation or 1); an unknown one lists the scenes
  --text "..."        the scene's text, for text scenes
  --still             a single image (the default)
  --animation         a video
  --width, --height   the resolution in pixels (the scene's default otherwise)
  --test              a free test render: small, watermarked, a few per day
  --wait              follow the render with a progress bar and download its files
  --out DIR           where --wait puts the files (default: ./renders)
  --help              this text

Environment:
  CLOUD_RENDER_API_KEY  an API key from your account page (rk_live_...), required
  CLOUD_RENDER_URL      the service (default: http://localhost:5173)`;

class UsageError extends Error {}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      scene: { type: 'string' },
      text: { type: 'string' },
      still: { type: 'boolean', default: false },
      animation: { type: 'boolean', default: false },
      width: { type: 'string' },
      height: { type: 'string' },
      test: { type: 'boolean', default: false },
      wait: { type: 'boolean', default: false },
      out: { type: 'string', default: 'renders' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
}

function options(argv: string[]) {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return undefined;
  if (!values.scene) throw new UsageError('--scene is required.');
  if (values.still && values.animation) throw new UsageError('Choose --still or --animation, not both.');
  const pixels = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number of pixels.`);
    return Number(value);
  };
  return { ...values, scene: values.scene, mode: values.animation ? ('animation' as const) : ('still' as const), width: pixels(values.width, 'width'), height: pixels(values.height, 'height') };
}

const money = (usd: number) => `$${usd.toFixed(2)}`;

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** `[#####-----] 3/10 frames, about 1 min 20 s left`: time left from the pace so far, the estimate before the first frame. */
export function progressLine(render: Render, elapsedSeconds: number, width = 24): string {
  const total = Math.max(1, render.total_frames);
  const done = Math.min(total, render.uploaded_frames.length);
  const filled = Math.round((done / total) * width);
  const left = done > 0 ? (elapsedSeconds / done) * (total - done) : Math.max(0, render.estimatedRenderTimeMinutes * 60 - elapsedSeconds);
  const tail = render.status === 'done' ? 'done' : render.status === 'queued' ? `queued, about ${duration(left)} left` : `about ${duration(left)} left`;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} frames, ${tail}`;
}

/** What a person should read for an error the API answered. */
export function explain(error: unknown): string {
  if (error instanceof UsageError) return `${error.message}\n\n${USAGE}`;
  if (error instanceof CloudRenderError) {
    if (error.status === 401) return `The API key was refused: ${error.message} Check CLOUD_RENDER_API_KEY (create a key on your account page).`;
    if (error.code === 'insufficient_credits' || error.status === 402) return `Not enough credits: ${error.message} Buy credits on your account page.`;
    if (error.field === 'scene' || error.field === 'sceneId') return error.message;
    return `${error.message} (HTTP ${error.status}, ${error.code}${error.field ? `, field ${error.field}` : ''})`;
  }
  if (error instanceof TypeError && /fetch/i.test(error.message)) return `Cannot reach the service: ${error.message}. Check CLOUD_RENDER_URL.`;
  return error instanceof Error ? error.message : String(error);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void, progress: (line: string) => void): Promise<number> {
  try {
    const args = options(argv);
    if (!args) {
      out(USAGE);
      return 0;
    }
    const apiKey = env.CLOUD_RENDER_API_KEY;
    if (!apiKey) throw new UsageError('Set CLOUD_RENDER_API_KEY to an API key from your account page.');
    const client = cloudRenderClient({ baseUrl: env.CLOUD_RENDER_URL || 'http://localhost:5173', apiKey });

    const scene = await client.scene(args.scene);
    const settings = { sceneId: scene.id, mode: args.mode, resolutionX: args.width ?? scene.resolution.default.x, resolutionY: args.height ?? scene.resolution.default.y };
    const quote = await client.quote(settings);
    out(args.test
      ? `${scene.title}, ${args.mode} ${settings.resolutionX}x${settings.resolutionY}: free test render (a final costs ${money(quote.finalPrice)})`
      : `${scene.title}, ${args.mode} ${settings.resolutionX}x${settings.resolutionY}: ${money(quote.finalPrice)}, paid with credits`);

    const request: RenderRequest = { ...settings, ...(args.text !== undefined ? { customText: args.text } : {}), ...(args.test ? { test: true } : {}) };
    const render = await client.createRender(request);
    out(`Render ${render.jobId} ${render.status}.`);
    if (!args.wait) {
      out(`Follow it with: GET /api/v1/renders/${render.jobId} (or run again with --wait).`);
      return 0;
    }

    const started = Date.now();
    const detail = await client.waitForRender(render.jobId, { onProgress: (r) => progress(progressLine(r, (Date.now() - started) / 1000)) });
    if (detail.render.status !== 'done') {
      out(`Render ${render.jobId} ${detail.render.status}${detail.render.crashReason ? `: ${detail.render.crashReason}` : ''}.${detail.render.paymentStatus === 'refunded' ? ' Its credits were refunded.' : ''}`);
      return 1;
    }
    const paths = await client.download(detail, resolve(args.out));
    out(`Downloaded ${paths.length} file${paths.length === 1 ? '' : 's'}:`);
    for (const path of paths) out(`  ${path}`);
    return 0;
  } catch (error) {
    out(`Error: ${explain(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A bar redrawn in place on a terminal; one line per change otherwise (logs, CI).
  let last = '';
  const progress = (line: string) => {
    if (line === last) return;
    last = line;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`);
    else process.stderr.write(`${line}\n`);
  };
  const out = (line: string) => {
    if (last && process.stderr.isTTY) process.stderr.write('\n');
    last = '';
    process.stdout.write(`${line}\n`);
  };
  process.exitCode = await main(process.argv.slice(2), process.env, out, progress);
}
