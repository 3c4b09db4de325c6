import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '#infra/paths';
import { scenes } from '#shared/catalogue';
import { costTables, documentedTables, idleCosts, renderCosts, type IdleLine } from '#scripts/costs';
import { SYNTH_TIMEOUT_MS } from './stack-template';

let idle: IdleLine[];
beforeAll(() => {
  idle = idleCosts();
}, SYNTH_TIMEOUT_MS);

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
    expect(idle.reduce((sum, entry) => sum + entry.monthly, 0)).toBeLessThan(12);
  });
});
