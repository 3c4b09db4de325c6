/**
 * A typed client of the render API: openapi-fetch over the types that
 * openapi-typescript generated from the API's own document (client/schema.ts),
 * plus the three things every integration writes: create a render, wait for it
 * (backing off on Retry-After), download its files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Scene = components['schemas']['Scene'];
export type Quote = components['schemas']['Quote'];
export type Render = components['schemas']['Render'];
export type RenderRequest = components['schemas']['RenderRequest'];
export type QuoteRequest = components['schemas']['QuoteRequest'];
export type RenderDetail = components['schemas']['RenderDetail'];
export type ApiErrorBody = components['schemas']['Error'];

/** An answer other than success: the API's `{ code, message, field? }` and its status. */
export class CloudRenderError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** Where the API is, e.g. https://render.example.com (the /api/v1 paths are appended). */
  baseUrl: string;
  apiKey: string;
  /** How often a 429 or 503 is retried after its Retry-After before the error is thrown. */
  retries?: number;
  /** The longest wait honoured for one Retry-After, in seconds. */
  maxRetryAfterSeconds?: number;
  fetch?: typeof fetch;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds from a Retry-After header (delta seconds or an HTTP date). */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A fetch that waits out 429 and 503 answers as their Retry-After asks (neither did anything, so a retry is safe). */
function backingOff(inner: typeof fetch, retries: number, maxWait: number): typeof fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt += 1) {
      const request = input instanceof Request ? input.clone() : input;
      const response = await inner(request, init);
      if ((response.status !== 429 && response.status !== 503) || attempt >= retries) return response;
      const wait = retryAfterSeconds(response.headers.get('retry-after')) ?? 2 ** attempt;
      await response.body?.cancel();
      await sleep(Math.min(wait, maxWait) * 1000);
    }
  };
}

function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = (result.error ?? {}) as Partial<ApiErrorBody>;
  throw new CloudRenderError(result.response.status, body.code ?? 'unknown', body.message ?? `HTTP ${result.response.status}`, body.field);
}

export interface WaitOptions {
  /** Called after every poll with the render as it stands. */
  onProgress?: (render: Render) => void;
  pollSeconds?: number;
  timeoutSeconds?: number;
}

const FINAL: ReadonlySet<Render['status']> = new Set(['done', 'failed', 'abandoned']);

export function cloudRenderClient(options: ClientOptions) {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: backingOff(options.fetch ?? globalThis.fetch, options.retries ?? 5, options.maxRetryAfterSeconds ?? 60),
  });

  const client = {
    /** The openapi-fetch client itself, typed by the document, for anything the helpers do not cover. */
    api,

    async scenes(): Promise<Scene[]> {
      return unwrap(await api.GET('/api/v1/scenes')).scenes;
    },

    /** A scene by its id or its slug; a CloudRenderError (code not_found) names the known ones otherwise. */
    async scene(idOrSlug: string | number): Promise<Scene> {
      const scenes = await client.scenes();
      const found = scenes.find((scene) => String(scene.id) === String(idOrSlug) || scene.slug === idOrSlug);
      if (!found) throw new CloudRenderError(404, 'not_found', `Unknown scene "${idOrSlug}". Scenes: ${scenes.map((s) => `${s.slug} (${s.id})`).join(', ')}.`, 'scene');
      return found;
    },

    async quote(request: QuoteRequest): Promise<Quote> {
      return unwrap(await api.POST('/api/v1/quotes', { body: request }));
    },

    /** Starts a render; the Idempotency-Key makes a retried call start (and charge) it once. */
    async createRender(request: RenderRequest, idempotencyKey: string = crypto.randomUUID()): Promise<Render> {
      return unwrap(await api.POST('/api/v1/renders', { body: request, params: { header: { 'Idempotency-Key': idempotencyKey } } })).render;
    },

    async getRender(renderId: string): Promise<RenderDetail> {
      return unwrap(await api.GET('/api/v1/renders/{renderId}', { params: { path: { renderId } } }));
    },

    /** Polls until the render is done, failed or abandoned; rate limits and outages are waited out. */
    async waitForRender(renderId: string, wait: WaitOptions = {}): Promise<RenderDetail> {
      const deadline = Date.now() + (wait.timeoutSeconds ?? 3600) * 1000;
      for (;;) {
        const detail = await client.getRender(renderId);
        wait.onProgress?.(detail.render);
        if (FINAL.has(detail.render.status)) return detail;
        if (Date.now() > deadline) throw new CloudRenderError(408, 'timeout', `Render ${renderId} is still ${detail.render.status}.`);
        await sleep((wait.pollSeconds ?? 2) * 1000);
      }
    },

    /** Downloads every file of a finished render into `directory`; the paths written, in the API's order. */
    async download(detail: RenderDetail, directory: string): Promise<string[]> {
      await mkdir(directory, { recursive: true });
      const paths: string[] = [];
      for (const file of detail.files) {
        const response = await (options.fetch ?? globalThis.fetch)(file.url);
        if (!response.ok) throw new CloudRenderError(response.status, 'download_failed', `Could not download ${file.name} (HTTP ${response.status}).`);
        const path = join(directory, basename(file.name));
        await writeFile(path, Buffer.from(await response.arrayBuffer()));
        paths.push(path);
      }
      return paths;
    },
  };
  return client;
}

export type CloudRenderClient = ReturnType<typeof cloudRenderClient>;
