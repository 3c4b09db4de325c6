import { json, requireAdmin, type ApiEvent } from '../lib/http';
import { healthReport, publicHealth, type HealthReport } from '#core/health/health';

/** Either report answers 503 with Retry-After while a component is down. */
const answer = (report: HealthReport, shown: unknown) => json(report.ok ? 200 : 503, shown, report.ok ? {} : { 'Retry-After': '5' });

/** GET /api/health: the overall state and each coarse component's, told to anyone (`publicHealth`, core/health/health.ts). */
export async function publicHealthCheck() {
  const report = await healthReport();
  return answer(report, publicHealth(report));
}

/** GET /api/admin/health: each component with its detail, for operators. */
export async function adminHealthCheck(event: ApiEvent) {
  requireAdmin(event);
  const report = await healthReport();
  return answer(report, report);
}
