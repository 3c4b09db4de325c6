import { z } from 'zod';
import { getScene } from '#shared/catalogue';
import type { Profile, FavoriteView, LedgerEntryView } from '#shared/api-types';
import { caller, jsonBody, pathParam, validate, type ApiEvent } from '../lib/http';
import { NotFoundError } from '#core/errors';
import { ensureUser, recordLogin, setNotifyByEmail, wantsOutcomeEmails } from '#core/users/users';
import { userSettingsRequest, type UserSettingsRequest } from '#shared/schemas';
import { listCreditHistoryNewestFirst } from '#core/credits/credits';
import { addFavorite, listFavoritesNewestFirst, removeFavorite } from '#core/favorites/favorites';

/** GET /api/me: the profile; the first call creates the user record (credits 0) and counts the signup once. */
export async function getProfile(event: ApiEvent): Promise<Profile> {
  const me = caller(event);
  const { user } = await ensureUser(me.userId, me.email);
  return {
    email: user.email,
    credits: user.credits,
    createdAt: user.createdAt,
    lastLogin: user.lastLogin ?? null,
    isAdmin: me.isAdmin,
    emailVerified: me.emailVerified,
    notifyByEmail: wantsOutcomeEmails(user),
  };
}

/** PUT /api/me/settings: the account page's switches (the render e-mails). */
export async function updateSettings(event: ApiEvent): Promise<UserSettingsRequest> {
  const me = caller(event);
  const { notifyByEmail } = jsonBody(event, userSettingsRequest);
  await ensureUser(me.userId, me.email);
  await setNotifyByEmail(me.userId, notifyByEmail);
  return { notifyByEmail };
}

const loginBody = z.strictObject({ method: z.enum(['email', 'google']) });

/** POST /api/me/login: records lastLogin after a successful sign-in. */
export async function recordSignIn(event: ApiEvent): Promise<{ ok: true }> {
  const me = caller(event);
  const { method } = jsonBody(event, loginBody);
  await ensureUser(me.userId, me.email);
  await recordLogin(me.userId, method);
  return { ok: true };
}

const sceneIdParam = z.coerce.number().int().refine((id) => getScene(id) !== undefined, 'Scene not found');

function sceneIdOf(event: ApiEvent): number {
  return validate(sceneIdParam, pathParam(event, 'sceneId'));
}

export async function listFavorites(event: ApiEvent): Promise<{ favorites: FavoriteView[] }> {
  return { favorites: await listFavoritesNewestFirst(caller(event).userId) };
}

export async function putFavorite(event: ApiEvent): Promise<{ favorite: FavoriteView; created: boolean }> {
  return addFavorite(caller(event).userId, sceneIdOf(event));
}

export async function deleteFavorite(event: ApiEvent): Promise<{ ok: true }> {
  const removed = await removeFavorite(caller(event).userId, sceneIdOf(event));
  if (!removed) throw new NotFoundError('Favorite not found');
  return { ok: true };
}

const historyQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(20) });

/** GET /api/credits/history?limit=: the ledger newest first, 20 by default. */
export async function creditHistory(event: ApiEvent): Promise<{ entries: LedgerEntryView[] }> {
  const { limit } = validate(historyQuery, event.queryStringParameters ?? {});
  return { entries: await listCreditHistoryNewestFirst(caller(event).userId, limit) };
}
