import { describe, expect, it } from 'vitest';
import {
  MIN_PASSWORD_LENGTH,
  MIN_PASSWORD_SCORE,
  accountStrengthLabel,
  passwordStrength,
  signupStrengthLabel,
} from '#shared/password';

describe('passwordStrength', () => {
  it('when each criterion is met, it adds exactly one point', () => {
    expect(passwordStrength('')).toBe(0);
    expect(passwordStrength('A')).toBe(1);
    expect(passwordStrength('a')).toBe(1);
    expect(passwordStrength('1')).toBe(1);
    expect(passwordStrength('!')).toBe(1);
    expect(passwordStrength('        ')).toBe(2); // length 8 and space is non-alphanumeric
    expect(passwordStrength('Aa1!')).toBe(4);
    expect(passwordStrength('Aa1!aaaa')).toBe(5);
  });

  it('when the length is 7 or 8, only 8 earns the length point', () => {
    expect(passwordStrength('abcdefg')).toBe(1);
    expect(passwordStrength('abcdefgh')).toBe(2);
    expect(MIN_PASSWORD_LENGTH).toBe(8);
    expect(MIN_PASSWORD_SCORE).toBe(3);
  });

  it('when a letter is accented, it counts as a symbol, not as a letter', () => {
    expect(passwordStrength('é')).toBe(1);
    expect(passwordStrength('éa')).toBe(2);
  });
});

describe('signupStrengthLabel', () => {
  it('when the password is empty, it asks for one', () => {
    expect(signupStrengthLabel('').label).toBe('Enter a password');
  });

  it('when the score crosses 2, 3, 4 and 5, the label and colour change', () => {
    expect(signupStrengthLabel('a')).toEqual({ label: 'Weak', color: 'red' }); // 1
    expect(signupStrengthLabel('abcdefgh')).toEqual({ label: 'Weak', color: 'red' }); // 2
    expect(signupStrengthLabel('abcdefg1')).toEqual({ label: 'Fair', color: 'yellow' }); // 3
    expect(signupStrengthLabel('Abcdefg1')).toEqual({ label: 'Good', color: 'blue' }); // 4
    expect(signupStrengthLabel('Abcdef1!')).toEqual({ label: 'Strong', color: 'green' }); // 5
  });
});

describe('accountStrengthLabel', () => {
  it('when given each score, it names it Very Weak (0-1), Weak, Fair, Good, Strong', () => {
    expect([0, 1, 2, 3, 4, 5].map((score) => accountStrengthLabel(score).label)).toEqual([
      'Very Weak',
      'Very Weak',
      'Weak',
      'Fair',
      'Good',
      'Strong',
    ]);
  });
});
