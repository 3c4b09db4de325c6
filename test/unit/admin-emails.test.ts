import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../core/config';
import { caller, type ApiEvent } from '../../lambdas/lib/http';

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
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [name, value] of Object.entries(settings)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  resetConfig();
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
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
