/** Password strength. */

export const MIN_PASSWORD_LENGTH = 8;
/** Sign-up and password change both require at least this score out of 5. */
export const MIN_PASSWORD_SCORE = 3;
export const MAX_PASSWORD_SCORE = 5;

export type StrengthColor = 'red' | 'yellow' | 'blue' | 'green' | 'gray';

export interface StrengthLabel {
  label: string;
  color: StrengthColor;
}

/**
 * Score 0..5, one point each: length ≥ 8, an uppercase letter, a lowercase letter, a
 * digit, a non-alphanumeric character. Letters and digits are the ASCII ones, so an
 * accented letter counts as a symbol.
 */
export function passwordStrength(password: string): number {
  return [
    password.length >= MIN_PASSWORD_LENGTH,
    /[A-Z]/.test(password),
    /[a-z]/.test(password),
    /[0-9]/.test(password),
    /[^A-Za-z0-9]/.test(password),
  ].filter(Boolean).length;
}

/** Sign-up meter: 'Enter a password' when empty, then Weak (≤ 2), Fair, Good, Strong. */
export function signupStrengthLabel(password: string): StrengthLabel {
  if (password === '') return { label: 'Enter a password', color: 'gray' };
  const score = passwordStrength(password);
  if (score <= 2) return { label: 'Weak', color: 'red' };
  if (score === 3) return { label: 'Fair', color: 'yellow' };
  if (score === 4) return { label: 'Good', color: 'blue' };
  return { label: 'Strong', color: 'green' };
}

/**
 * Account-screen meter, by score: Very Weak (0-1), Weak (2), Fair (3), Good (4), Strong (5).
 * It reuses the sign-up meter's colours so both meters agree.
 */
export function accountStrengthLabel(score: number): StrengthLabel {
  if (score <= 1) return { label: 'Very Weak', color: 'red' };
  if (score === 2) return { label: 'Weak', color: 'red' };
  if (score === 3) return { label: 'Fair', color: 'yellow' };
  if (score === 4) return { label: 'Good', color: 'blue' };
  return { label: 'Strong', color: 'green' };
}
