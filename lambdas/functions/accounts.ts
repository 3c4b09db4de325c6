import { createFunction } from '../lib/http';
import { creditHistory, deleteFavorite, getProfile, listFavorites, putFavorite, recordSignIn, updateSettings } from '../handlers/accounts';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('accounts', {
  'GET /api/me': getProfile,
  'POST /api/me/login': recordSignIn,
  'PUT /api/me/settings': updateSettings,
  'GET /api/favorites': listFavorites,
  'PUT /api/favorites/{sceneId}': putFavorite,
  'DELETE /api/favorites/{sceneId}': deleteFavorite,
  'GET /api/credits/history': creditHistory,
});
