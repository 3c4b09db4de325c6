/**
 * The HTTP API client: JSON in and out, the Cognito ID token on non-public routes,
 * errors as ApiError carrying the server's `{ code, message }` (the message in the product's own wording).
 */
import type { LiveFrames } from '#shared/live-frames';
import type { QueuePlace } from '#shared/queue';
import type { PreviewRequest, UserSettingsRequest } from '#shared/schemas';
import type {
  CreateJobResponse,
  ErrorBody,
  ErrorCode,
  PaymentTicket,
  CreditPurchaseResponse,
  SceneDelivery,
  FavoriteView,
  JobView,
  LedgerEntryView,
  LivePreview,
  LivePreviewStrip,
  MainOutput,
  OutputFileView,
  Profile,
  UploadTicket,
} from '#shared/api-types';
import type { CreateJobRequest, UploadRequest } from '#shared/schemas';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/api-types';
import { loadAuth } from './auth-loader';
import { AUTHENTICATION_REQUIRED } from '#shared/messages';

/** `network`: the server was not reached (offline, time-out). */
export type ApiErrorCode = ErrorCode | 'network';

export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    /** The request field an invalid_request is about, and how long a 429 or 503 asks the client to wait. */
    readonly details: { field?: string; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A 70-second time-out, the one a payment call gets, applied to every API call: nothing waits forever. */
export const API_TIMEOUT_MS = 70_000;

export async function apiRequest<T>(method: Method, path: string, body?: unknown, options: { auth?: boolean; idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.idempotencyKey) headers[IDEMPOTENCY_KEY_HEADER] = options.idempotencyKey;
  if (options.auth !== false) {
    const token = await (await loadAuth()).idToken();
    if (!token) throw new ApiError('unauthenticated', AUTHENTICATION_REQUIRED);
    headers.Authorization = `Bearer ${token}`;
  }
  let response: Response;
  try {
    response = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: withTimeout(options.signal) });
  } catch (error) {
    // A caller's own cancellation stays one, so it is not mistaken for being offline.
    if (options.signal?.aborted) throw error;
    throw new ApiError('network', 'Network Error');
  }
  const text = await response.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!response.ok) {
    const error = data as Partial<ErrorBody> | undefined;
    // A body without a code comes from in front of the API: the gateway's authorizer (401), a proxy, the CDN.
    const code = error?.code ?? (response.status === 401 ? 'unauthenticated' : 'internal');
    const retryAfter = Number(response.headers.get('Retry-After'));
    throw new ApiError(code, error?.message ?? (response.statusText || `HTTP ${response.status}`), {
      ...(error?.field ? { field: error.field } : {}),
      ...(retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  return data as T;
}

/** API_TIMEOUT_MS, or the caller's cancellation, whichever comes first. */
function withTimeout(signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(API_TIMEOUT_MS);
  if (!signal) return timeout;
  const both = new AbortController();
  for (const one of [signal, timeout]) {
    if (one.aborted) both.abort(one.reason);
    else one.addEventListener('abort', () => both.abort(one.reason), { once: true });
  }
  return both.signal;
}

export const api = {
  me: () => apiRequest<Profile>('GET', '/me'),
  recordLogin: (method: 'email' | 'google') => apiRequest<{ ok: true }>('POST', '/me/login', { method }),
  /** What the server's promise of a new job of the scene is computed from (public, so a visitor's page has it too). */
  sceneDelivery: (sceneId: number) => apiRequest<SceneDelivery>('GET', `/scenes/${sceneId}/delivery`, undefined, { auth: false }),
  favorites: () => apiRequest<{ favorites: FavoriteView[] }>('GET', '/favorites'),
  addFavorite: (sceneId: number) => apiRequest<{ favorite: FavoriteView; created: boolean }>('PUT', `/favorites/${sceneId}`),
  removeFavorite: (sceneId: number) => apiRequest<{ ok: true }>('DELETE', `/favorites/${sceneId}`),
  creditHistory: (limit: number) => apiRequest<{ entries: LedgerEntryView[] }>('GET', `/credits/history?limit=${limit}`),
  purchaseCredits: (credits: number, idempotencyKey: string) => apiRequest<CreditPurchaseResponse>('POST', '/credits/purchases', { credits }, { idempotencyKey }),
  createUpload: (request: UploadRequest) => apiRequest<UploadTicket>('POST', '/uploads', request),
  createJob: (request: CreateJobRequest, idempotencyKey: string) => apiRequest<CreateJobResponse>('POST', '/jobs', request, { idempotencyKey }),
  jobs: () => apiRequest<{ jobs: JobView[] }>('GET', '/jobs'),
  job: (jobId: string) => apiRequest<{ job: JobView }>('GET', `/jobs/${encodeURIComponent(jobId)}`),
  abandonJob: (jobId: string) => apiRequest<{ job: JobView }>('POST', `/jobs/${encodeURIComponent(jobId)}/abandon`),
  resumeJob: (jobId: string) => apiRequest<{ job: JobView }>('POST', `/jobs/${encodeURIComponent(jobId)}/resume`),
  jobFiles: (jobId: string) => apiRequest<{ files: OutputFileView[] }>('GET', `/jobs/${encodeURIComponent(jobId)}/files`),
  mainOutput: (jobId: string) => apiRequest<MainOutput>('GET', `/jobs/${encodeURIComponent(jobId)}/main-output`),
  jobFrames: (jobId: string) => apiRequest<LiveFrames>('GET', `/jobs/${encodeURIComponent(jobId)}/frames`),
  jobQueue: (jobId: string) => apiRequest<{ queue: QueuePlace | null }>('GET', `/jobs/${encodeURIComponent(jobId)}/queue`),
  updateSettings: (settings: UserSettingsRequest) => apiRequest<UserSettingsRequest>('PUT', '/me/settings', settings),
  /** A live preview of the customise form's settings; the visitor's route when nobody is signed in (it takes no upload). */
  livePreview: (request: PreviewRequest, signedIn: boolean, signal?: AbortSignal) =>
    apiRequest<LivePreview | LivePreviewStrip>('POST', signedIn ? '/previews' : '/visitor-previews', request, { auth: signedIn, signal }),
  /** Starts the scene's preview server, so the customer's first change finds it warm (202). */
  warmPreviews: (sceneId: number, signedIn: boolean) => apiRequest<{ warm: true }>('POST', signedIn ? '/previews' : '/visitor-previews', { sceneId, warmUp: true }, { auth: signedIn }),
  jobPayment: (jobId: string) => apiRequest<PaymentTicket>('GET', `/jobs/${encodeURIComponent(jobId)}/payment`),
  reportProblem: (jobId: string, description: string) =>
    apiRequest<{ ok: true; message: string }>('POST', `/jobs/${encodeURIComponent(jobId)}/reports`, { description }),
  confirmLocalPayment: (body: { paymentId: string; cardNumber: string; expiry?: string; cvc?: string }) =>
    apiRequest<{ status: string }>('POST', '/payments/local/confirm', body),
};

/**
 * The browser's half of a presigned POST: every field of the ticket, then the file
 * last (S3 ignores fields after the file). XMLHttpRequest, because fetch reports no
 * upload progress.
 */
export function uploadToStorage(ticket: UploadTicket, file: Blob, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    form.append('file', file, ticket.fileName);
    const request = new XMLHttpRequest();
    request.open('POST', ticket.url);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve();
      } else {
        const code = /<Message>([^<]*)<\/Message>/.exec(request.responseText)?.[1];
        reject(new Error(code ?? `Upload failed (HTTP ${request.status})`));
      }
    };
    request.onerror = () => reject(new Error('Network Error'));
    request.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}
