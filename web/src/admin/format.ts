/** How the admin dashboards write their figures. */

/** Dollars with 2 decimals: '$102.40'. */
export function formatUsd(amount: number): string {
  return `$${amount.toFixed(2)}`;
}

/** A figure the rollup could not compute (nothing to average) reads 'N/A', never a made-up 0. */
export const NOT_AVAILABLE = 'N/A';

/** Avg Queue Time: whole minutes. */
export function formatRoundedMinutes(minutes: number | null | undefined): string {
  return minutes === null || minutes === undefined ? NOT_AVAILABLE : `${Math.round(minutes)} min`;
}

/** Avg Render Time: minutes to 1 decimal. */
export function formatMinutes(minutes: number | null | undefined): string {
  return minutes === null || minutes === undefined ? NOT_AVAILABLE : `${minutes.toFixed(1)} min`;
}

/** Success Rate: a rounded percentage. */
export function formatRoundedPercent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? NOT_AVAILABLE : `${Math.round(rate)}%`;
}

/** Error Rate and Uptime: 1 decimal. */
export function formatPercent1(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? NOT_AVAILABLE : `${rate.toFixed(1)}%`;
}

/** The growth beside Total Renders: '+250.0%', or '-12.5%' when it fell. */
export function formatGrowth(percentage: number): string {
  return `${percentage >= 0 ? '+' : '-'}${Math.abs(percentage).toFixed(1)}%`;
}

const shortDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Daily Activity's x labels: short month and day of a UTC date ('2025-01-05' → 'Jan 5'). */
export function formatShortDate(date: string): string {
  const parsed = new Date(`${date}T00:00:00.000Z`);
  return Number.isNaN(parsed.getTime()) ? date : shortDay.format(parsed);
}

/** Counts with thousands separators. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
