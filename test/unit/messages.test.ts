import { describe, expect, it } from 'vitest';
import {
  EMAIL_CLIENT_STATUS_TEXT,
  VERIFY_EMAIL_TO_RENDER,
  insufficientCredits,
  loginErrorMessage,
  passwordChangeErrorMessage,
  renderStartFailed,
  resumeFailed,
  signupErrorMessage,
} from '#shared/messages';

describe('messages', () => {
  it('when credits fall short, it names the credits needed', () => {
    expect(insufficientCredits(3)).toBe('Insufficient credits. You need 3 credits for this render.');
    expect(insufficientCredits(2.27)).toBe('Insufficient credits. You need 2.27 credits for this render.');
    expect(VERIFY_EMAIL_TO_RENDER).toBe('Please verify your email before starting a render job.');
  });

  it('when a render or resume fails without a message, it says Unknown error', () => {
    expect(renderStartFailed()).toBe('Error: Could not start render - Unknown error');
    expect(renderStartFailed('busy')).toBe('Error: Could not start render - busy');
    expect(resumeFailed()).toBe('Failed to resume job: Unknown error');
  });

  it('when login fails, short codes and Cognito names map to the same text', () => {
    expect(loginErrorMessage('user-not-found')).toBe('No user found with this email address');
    expect(loginErrorMessage('wrong-password')).toBe('Incorrect password. Please try again.');
    expect(loginErrorMessage('NotAuthorizedException')).toBe('Incorrect password. Please try again.');
    expect(loginErrorMessage('too-many-requests')).toBe('Too many login attempts. Please try again later.');
    expect(loginErrorMessage('UserNotConfirmedException')).toBe('Email not verified. Please check your inbox for the verification link.');
    expect(loginErrorMessage(undefined)).toBe('Failed to log in. Please check your credentials.');
  });

  it('when sign-up or a password change fails, it gives the fixed texts', () => {
    expect(signupErrorMessage('email-already-in-use')).toBe('Email is already registered');
    expect(signupErrorMessage('invalid-email')).toBe('Invalid email address');
    expect(signupErrorMessage('weak-password')).toBe('Password is too weak');
    expect(signupErrorMessage('other', 'boom')).toBe('Failed to create an account: boom');
    expect(passwordChangeErrorMessage('wrong-password')).toBe('Current password is incorrect');
    expect(passwordChangeErrorMessage('weak-password')).toBe('New password is too weak');
    expect(passwordChangeErrorMessage('x')).toBe('Failed to update password. Please try again.');
  });

  it('when the email client answers with a status, it has the fixed text', () => {
    expect(EMAIL_CLIENT_STATUS_TEXT[451]).toBe('Unavailable For Headless Browser');
    expect(EMAIL_CLIENT_STATUS_TEXT[0]).toBe('Network Error');
  });
});
