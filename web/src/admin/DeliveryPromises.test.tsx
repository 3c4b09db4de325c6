import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CALIBRATION_MIN_CHUNKS } from '#shared/fast-path';
import type { SceneDeliveryRow } from '#shared/analytics-api';
import { DeliveryPromises } from './DeliveryPromises';

const row = (overrides: Partial<SceneDeliveryRow>): SceneDeliveryRow => ({
  scene_id: 1,
  scene_name: 'Text Animation',
  from: '2025-03-14',
  to: '2025-03-20',
  measured_chunks: 0,
  render_against_model: null,
  renders: 0,
  on_time: 0,
  promised_seconds: null,
  actual_seconds: null,
  ...overrides,
});

/** The cells of the scene's row, by column heading. */
function rowOf(scene: string): Record<string, string> {
  const table = screen.getByRole('table');
  const headings = within(table).getAllByRole('columnheader').map((cell) => cell.textContent!);
  const cells = within(screen.getByRole('rowheader', { name: scene }).closest('tr')!).getAllByRole('cell').map((cell) => cell.textContent!);
  return Object.fromEntries(headings.slice(1).map((heading, i) => [heading, cells[i]]));
}

describe('DeliveryPromises', () => {
  it("when scenes have renders, each row shows what they were promised against what their customers waited, and where the promise comes from", () => {
    render(
      <DeliveryPromises
        rows={[
          row({ scene_id: 6, scene_name: 'Bus Stop', measured_chunks: CALIBRATION_MIN_CHUNKS - 1 }),
          row({ measured_chunks: 120, render_against_model: { p50: 1.2, p90: 1.6 }, renders: 4, on_time: 3, promised_seconds: { p50: 28.4, p90: 51.2 }, actual_seconds: { p50: 26.1, p90: 60.3 } }),
        ]}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Promised against actual' })).toBeInTheDocument();
    expect(rowOf('Text Animation')).toEqual({ Renders: '4', Promised: '28 s (p90 51 s)', Actual: '26 s (p90 60 s)', 'On time': '75%', 'Measured chunks': '120', 'Promise from': 'production' });
    expect(rowOf('Bus Stop')).toEqual({ Renders: '0', Promised: 'N/A', Actual: 'N/A', 'On time': 'N/A', 'Measured chunks': String(CALIBRATION_MIN_CHUNKS - 1), 'Promise from': 'bench' });
    // Scenes in catalogue order, whatever order the answer lists them in.
    expect(screen.getAllByRole('rowheader').map((cell) => cell.textContent)).toEqual(['Text Animation', 'Bus Stop']);
    expect(screen.getByText(/Mar 14 to Mar 20/)).toBeInTheDocument();
  });

  it('when the recalibration has not run, it says so instead of an empty table', () => {
    render(<DeliveryPromises rows={[]} />);
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.getByText(/has not run yet/)).toBeInTheDocument();
  });
});
