import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '#infra/paths';
import { scenes } from '#shared/catalogue';
import { costTables, documentedTables, fastPathCost, idleCosts, renderCosts, SNAPSTART_USAGE, type IdleLine } from '#scripts/costs';
import { SYNTH_TIMEOUT_MS } from './stack-template';

let idle: IdleLine[];
let idleWithoutSnapStart: IdleLine[];
beforeAll(() => {
  idle = idleCosts();
  idleWithoutSnapStart = idleCosts({ snapStart: 'false' });
}, 2 * SYNTH_TIMEOUT_MS);

const totalOf = (lines: IdleLine[]) => lines.reduce((sum, entry) => sum + entry.monthly, 0);

describe('cost on paper (npm run costs)', () => {
  it('when docs/costs.md is compared with what the script prints now, its tables are current', () => {
    expect(documentedTables(readFileSync(fromRoot('docs/costs.md'), 'utf8')), 'docs/costs.md is stale: run npm run costs -- --write').toBe(costTables());
  });

  it('when every scene is costed, each mode it supports has a row, Full-HD, with its price from the calculator', () => {
    const rows = renderCosts();
    expect(rows.map((row) => `${row.scene.id}:${row.mode}`)).toEqual(scenes.flatMap((scene) => scene.supportsModes.map((mode) => `${scene.id}:${mode}`)));
    for (const row of rows) {
      expect(row.fargateSpot).toBeLessThan(row.fargateOnDemand);
      expect(row.price, `${row.scene.title} ${row.mode}`).toBeGreaterThan(row.fargateOnDemand + row.other);
    }
  });

  it('when the deployment is idle, it pays for no NAT gateway and no always-on compute, about ten dollars a month (mostly the WAF)', () => {
    const line = (prefix: string) => idle.find((entry) => entry.item.startsWith(prefix))!;
    expect(line('NAT gateways').count).toBe(0);
    expect(line('Always-on compute').count).toBe(0);
    expect(line('CloudWatch alarm metrics').count).toBeGreaterThan(0);
    expect(line('AWS WAF web ACL').monthly).toBe(7);
    expect(totalOf(idle.filter((entry) => entry.item !== 'SnapStart snapshot cache'))).toBeLessThan(12);
  });

  it("when SnapStart is on (the default), the idle cost adds the render and preview functions' snapshot cache for every second of the month; with the snapStart setting false there is none and the total stays under $12", () => {
    const cache = idle.find((entry) => entry.item === 'SnapStart snapshot cache')!;
    expect(cache.count).toBe(2);
    // 10,240 MB and 1,769 MB at $0.0000015046 per GB-second for 30 days.
    expect(cache.monthly).toBeCloseTo(((10_240 + 1_769) / 1024) * 0.0000015046 * 30 * 86_400, 6);
    const without = idleWithoutSnapStart.find((entry) => entry.item === 'SnapStart snapshot cache')!;
    expect(without).toMatchObject({ count: 0, monthly: 0 });
    expect(totalOf(idleWithoutSnapStart)).toBeLessThan(12);
    expect(totalOf(idle) - totalOf(idleWithoutSnapStart)).toBeCloseTo(cache.monthly, 6);
  });

  it('when a render runs on a SnapStart render function, each environment it starts is a restore (per GB restored and its billed part) and the render carries its share of the snapshot cache; without SnapStart, Init is billed instead', () => {
    const text = scenes.find((scene) => scene.slug === 'text-animation')!;
    const restored = fastPathCost(text, 'animation', undefined, 1000, 'snapstart');
    const initialised = fastPathCost(text, 'animation', undefined, 1000, 'init');
    expect(initialised).toMatchObject({ restore: 0, cache: 0 });
    // 120 chunks, 120 environments, 10 GB each: 1,200 GB restored.
    expect(restored.restore).toBeCloseTo(120 * 10 * 0.0001397998, 9);
    expect(restored.cache).toBeCloseTo((10 * 0.0000015046 * 30 * 86_400) / SNAPSTART_USAGE.rendersPerMonth, 9);
    expect(restored.functionSeconds).toBeCloseTo(1000 + 120 * SNAPSTART_USAGE.billedRestoreSeconds, 9);
    expect(initialised.functionSeconds).toBeCloseTo(1000 + 120 * 10, 9);
  });
});
