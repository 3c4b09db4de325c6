/**
 * The one logger of the server side: API functions, stream and scheduled functions,
 * the render worker and the local stack all write through it. Powertools' Logger
 * writes one JSON line per call (level, message, service, timestamp, X-Ray trace id);
 * this module adds what belongs to the work in hand: the API request id, the job id
 * and a hash of the user id, carried by an AsyncLocalStorage scope rather than by
 * Powertools' per-process keys, because the local API server serves many requests at
 * once in one process. Every string is scrubbed of e-mail addresses, tokens, API keys
 * and card numbers before it is written, so an error message that quotes one (a
 * mail provider's refusal, a header) cannot leak it.
 *
 * It lives outside core/ and adapters/ and imports neither (nor anything of the
 * domain), so both may use it without breaking the one-way import rule.
 *
 * Locally `npm run dev` sets POWERTOOLS_DEV in a terminal: Powertools then indents
 * each line (and stops emitting metrics), which keeps the terminal readable.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';

export const SERVICE_NAME = 'cloud-render';

/** What a log line says about the work in hand; any key may be missing (a schedule has no request). */
export interface LogScope {
  requestId?: string;
  jobId?: string;
  userHash?: string;
  /** The X-Ray trace of the request that started the work, when it ran elsewhere (the render worker). */
  traceId?: string;
  /** The API route, the stream or the worker step: where in the system the line comes from. */
  source?: string;
}

const scopes = new AsyncLocalStorage<LogScope>();

/**
 * A user is named in logs by the first 16 hex digits of the SHA-256 of their id: lines
 * of one user can be grouped, and an operator who holds a user id finds them
 * (docs/operations.md), but a line alone names nobody.
 */
export function hashUserId(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 16);
}

/** Runs `work` with the scope added to every line (and metric) it writes, including in what it awaits. */
export function withLogScope<T>(scope: LogScope, work: () => T): T {
  return scopes.run({ ...scopes.getStore(), ...scope }, work);
}

/** Adds what was learnt along the way (the job a request created, its user) to the current scope. */
export function addToLogScope(fields: { jobId?: string; userId?: string }): void {
  const scope = scopes.getStore();
  if (!scope) return;
  if (fields.jobId) scope.jobId = fields.jobId;
  if (fields.userId) scope.userHash = hashUserId(fields.userId);
}

export function currentLogScope(): LogScope {
  return { ...scopes.getStore() };
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const JWT = /\beyJ[\w-]+\.[\w-]+\.[\w-]*/g;
const API_KEY = /\brk_live_[A-Za-z0-9_-]+/g;
const BEARER = /\b(Bearer|Basic)\s+[^\s"',]+/gi;
/** 13 to 19 digits, spaced or not, starting as card numbers do (2-6); epoch milliseconds start with 1 until 2033. */
const CARD = /\b[2-6](?:[ -]?\d){12,18}\b/g;

/** Luhn's check: only digit runs that could be a card number are hidden (not every long id). */
function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The string with every e-mail address, token, API key and card number replaced by what it was. */
export function scrub(text: string): string {
  return text
    .replace(EMAIL, '[email]')
    .replace(JWT, '[token]')
    .replace(API_KEY, '[api-key]')
    .replace(BEARER, '$1 [token]')
    .replace(CARD, (match) => (isCardNumber(match) ? '[card]' : match));
}

let instance: Logger | undefined;
/** Created on first use, so an entry point can set POWERTOOLS_* variables before it. */
function powertools(): Logger {
  instance ??= new Logger({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
    jsonReplacerFn: (_key, value) => (typeof value === 'string' ? scrub(value) : value),
  });
  return instance;
}

type Fields = Record<string, unknown>;

function entry(extra: unknown): Fields {
  const scope = scopes.getStore() ?? {};
  if (extra === undefined) return { ...scope };
  // A caught value is logged as the error, whatever it is; a plain object's keys become fields.
  if (extra instanceof Error || typeof extra !== 'object' || extra === null) return { ...scope, error: extra };
  return { ...scope, ...(extra as Fields) };
}

/** The logger. `fields` are added to the line; an Error (alone or as `error`) is written with its name, message and stack. */
export const log = {
  debug: (message: string, fields?: unknown) => powertools().debug(message, entry(fields)),
  info: (message: string, fields?: unknown) => powertools().info(message, entry(fields)),
  warn: (message: string, fields?: unknown) => powertools().warn(message, entry(fields)),
  error: (message: string, fields?: unknown) => powertools().error(message, entry(fields)),
};
