import { describe, expect, it } from 'vitest';
import { api } from './helpers';

describe('GET /api/health', () => {
  it('when the local stack is up, it reports every component, the payments mode and the Blender version', async () => {
    const { status, body } = await api('/api/health');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.components).sort()).toEqual(['database', 'identity', 'mail', 'payments', 'renderer', 'storage']);
    for (const component of Object.values(body.components) as { ok: boolean }[]) expect(component.ok).toBe(true);
    expect(body.components.payments.detail).toMatch(/local test mode/);
    expect(body.components.renderer.detail).toMatch(/^Blender \d+\.\d+/);
  });

  it('when Blender cannot be found, the renderer is reported down with how to install it', async () => {
    const previous = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = '/nonexistent/blender';
    try {
      const { health } = await import('../../lambdas/handlers/health');
      const report = await health();
      expect(report.ok).toBe(false);
      expect(report.components.renderer).toMatchObject({ ok: false });
      expect(report.components.renderer.detail).toMatch(/apt-get install -y blender/);
    } finally {
      if (previous === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = previous;
    }
  });
});
