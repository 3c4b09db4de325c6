import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type ApiEvent } from '#lambdas/lib/http';
import { envSettings } from './env-settings';

const settings = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'render-table',
  UPLOADS_BUCKET: 'render-uploads',
  OUTPUTS_BUCKET: 'render-outputs',
  USER_POOL_ID: 'pool',
  USER_POOL_CLIENT_ID: 'client',
  SITE_URL: 'http://localhost:5173',
  ADMIN_EMAILS: 'owner@example.com',
};
const environment = envSettings(settings);
beforeAll(() => {
  environment.apply();
});
afterAll(() => {
  environment.restore();
});

const signedIn = (claims: Record<string, unknown>) => ({ requestContext: { authorizer: { jwt: { claims: { sub: 'u1', ...claims } } } }, headers: {} }) as unknown as ApiEvent;

describe('admin rights from the configured admin e-mails', () => {
  it('when a token carries an admin address its owner has verified, it is an admin', () => {
    expect(caller(signedIn({ email: 'Owner@example.com', email_verified: 'true' })).isAdmin).toBe(true);
  });

  it('when a token carries an admin address that was never verified (anyone can sign up with it), it is not an admin', () => {
    expect(caller(signedIn({ email: 'owner@example.com', email_verified: 'false' })).isAdmin).toBe(false);
    expect(caller(signedIn({ email: 'owner@example.com' })).isAdmin).toBe(false);
  });
});
