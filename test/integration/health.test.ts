import { describe, expect, it } from 'vitest';
import { api, verifiedUser } from './helpers';

const COMPONENTS = ['database', 'identity', 'mail', 'payments', 'renderer', 'storage'];

describe('GET /api/health', () => {
  it('when anyone asks, it answers each coarse component ok or unavailable, and no version, mode, path or name', async () => {
    const { status, body, headers } = await api('/api/health');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toEqual({ ok: true, status: 'ok', components: Object.fromEntries(COMPONENTS.map((name) => [name, 'ok'])) });
    const text = JSON.stringify(body);
    for (const secret of [/blender/i, /\d+\.\d+/, /local test mode/i, /stripe/i, /bucket/i, /user pool/i, /\//]) expect(text).not.toMatch(secret);
    expect(headers.get('content-type')).toMatch(/json/);
  });

  it('when an admin asks GET /api/admin/health, it reports every component with its detail: the payments mode and the Blender version', async () => {
    const admin = await verifiedUser(['admin']);
    const { status, body } = await api('/api/admin/health', { token: admin.token });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.components).sort()).toEqual(COMPONENTS);
    for (const component of Object.values(body.components) as { ok: boolean }[]) expect(component.ok).toBe(true);
    expect(body.components.payments.detail).toMatch(/local test mode/);
    expect(body.components.renderer.detail).toMatch(/^Blender \d+\.\d+/);
  });

  it('when a signed-in user who is not an admin, or no one, asks for the detail, it is refused', async () => {
    const user = await verifiedUser();
    expect((await api('/api/admin/health', { token: user.token })).status).toBe(403);
    expect((await api('/api/admin/health')).status).toBe(401);
  });

  it('when Blender cannot be found, the renderer is reported down with how to install it, and the public answer says only degraded', async () => {
    const previous = process.env.BLENDER_PATH;
    process.env.BLENDER_PATH = '/nonexistent/blender';
    try {
      const { health, publicHealth } = await import('../../lambdas/handlers/health');
      const report = await health();
      expect(report.ok).toBe(false);
      expect(report.components.renderer).toMatchObject({ ok: false });
      expect(report.components.renderer.detail).toMatch(/apt-get install -y blender/);
      expect(publicHealth(report)).toMatchObject({ ok: false, status: 'degraded', components: { renderer: 'unavailable', database: 'ok' } });
    } finally {
      if (previous === undefined) delete process.env.BLENDER_PATH;
      else process.env.BLENDER_PATH = previous;
    }
  });
});
