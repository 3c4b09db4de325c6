/** The account's own settings (the render e-mails switch). */
import { useMutation } from '@tanstack/react-query';
import type { UserSettingsRequest } from '#shared/schemas';
import { api } from '../lib/api';

/** Saves the settings at once; the answer is what the server saved. */
export function useSaveSettings() {
  return useMutation({ mutationFn: (settings: UserSettingsRequest) => api.updateSettings(settings) });
}
