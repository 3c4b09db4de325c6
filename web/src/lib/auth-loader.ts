/**
 * The auth module (aws-amplify) loaded on demand, once the settings it needs are in,
 * so the home route renders without waiting for either: everything in the initial
 * bundle reaches auth through here.
 */
import { configReady } from '../config';

export type AuthModule = typeof import('./auth');

let loading: Promise<AuthModule> | undefined;

export function loadAuth(): Promise<AuthModule> {
  loading ??= configReady().then(() => import('./auth'));
  return loading;
}
