import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { CognitoIdentityProviderClient, ForgotPasswordCommand, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { verifiedUser } from './helpers';

/**
 * The local identity service answers as the stack's Cognito client does: it does not
 * hide which users exist, so login can say 'No user found with this email address'
 * for an address without an account and 'Incorrect password' for a wrong password.
 */
const env = () => inject('stackEnv');
const cognito = () => new CognitoIdentityProviderClient({ endpoint: env().COGNITO_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

async function errorName(action: Promise<unknown>): Promise<string> {
  try {
    await action;
  } catch (error) {
    return (error as Error).name;
  }
  return 'no error';
}

const signIn = (email: string, password: string) =>
  cognito().send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: env().USER_POOL_CLIENT_ID, AuthParameters: { USERNAME: email, PASSWORD: password } }));

describe('sign-in errors of the local identity service', () => {
  it('when the address has no account, sign-in fails with UserNotFoundException', async () => {
    expect(await errorName(signIn('nobody-here@example.com', 'Test-password-1'))).toBe('UserNotFoundException');
  });

  it('when the password is wrong, sign-in fails with NotAuthorizedException', async () => {
    const user = await verifiedUser();
    expect(await errorName(signIn(user.email, 'Wrong-password-1'))).toBe('NotAuthorizedException');
  });

  it('when a reset is asked for an address without an account, it fails with UserNotFoundException', async () => {
    expect(await errorName(cognito().send(new ForgotPasswordCommand({ ClientId: env().USER_POOL_CLIENT_ID, Username: 'nobody-here@example.com' })))).toBe('UserNotFoundException');
  });
});
