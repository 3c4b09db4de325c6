/**
 * The auth module (aws-amplify) loaded on demand, so the home route renders without
 * waiting for it: everything in the initial bundle reaches auth through here.
 */
export type AuthModule = typeof import('./auth');

let loading: Promise<AuthModule> | undefined;

export function loadAuth(): Promise<AuthModule> {
  loading ??= import('./auth');
  return loading;
}
