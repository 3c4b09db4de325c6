import { describe, expect, it } from 'vitest';
import { boundOf, bucketOf, percentileOf } from '#core/analytics/delivery-figures';

/** A histogram of the values, as a day's item counts them. */
const countsOf = (values: number[]) => {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(bucketOf(value), (counts.get(bucketOf(value)) ?? 0) + 1);
  return counts;
};

describe('the delivery figures\' buckets', () => {
  it('when a value is counted, its bucket\'s bound is at least the value and less than 5 % above it', () => {
    for (const value of [0.011, 0.25, 1, 2.3, 9.99, 58.5, 600, 900]) {
      expect(boundOf(bucketOf(value)), String(value)).toBeGreaterThanOrEqual(value);
      expect(boundOf(bucketOf(value)), String(value)).toBeLessThan(value * 1.05);
    }
    expect(bucketOf(0)).toBe(0);
  });

  it('when percentiles are read from the counts, they are the measured ones, erring slow by less than a bucket', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    const counts = countsOf(values);
    expect(percentileOf(counts, 0.5)).toBeGreaterThanOrEqual(50);
    expect(percentileOf(counts, 0.5)).toBeLessThan(50 * 1.05);
    expect(percentileOf(counts, 0.9)).toBeGreaterThanOrEqual(90);
    expect(percentileOf(counts, 0.9)).toBeLessThan(90 * 1.05);
  });

  it('when nothing was counted, a percentile is 0', () => {
    expect(percentileOf(new Map(), 0.5)).toBe(0);
  });
});
