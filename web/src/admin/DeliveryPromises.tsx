/**
 * The dashboard's "Promised against actual" table: per scene, what renders finished in the recalibration's 7 days
 * were promised ("ready in about N s") against what their customers waited, and whether the scene's promise follows
 * production's measured chunks or still the bench's figures (core/analytics/delivery-figures.ts).
 */
import { CALIBRATION_MIN_CHUNKS } from '#shared/fast-path';
import type { P50P90, SceneDeliveryRow } from '#shared/analytics-api';
import { formatCount, formatShortDate, NOT_AVAILABLE } from './format';

/** Seconds as the promise reads them: a median, and the 90th percentile beside it. */
function seconds(figure: P50P90 | null): string {
  return figure ? `${Math.round(figure.p50)} s (p90 ${Math.round(figure.p90)} s)` : NOT_AVAILABLE;
}

export function DeliveryPromises({ rows }: { rows: readonly SceneDeliveryRow[] }) {
  const window = rows[0];
  return (
    <article className="admin-panel">
      <h2>Promised against actual</h2>
      {rows.length === 0 ? (
        <p className="muted">The delivery recalibration has not run yet: it runs daily, with the analytics rollup.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="admin-table">
              <thead>
                <tr>
                  <th scope="col">Scene</th>
                  <th scope="col">Renders</th>
                  <th scope="col">Promised</th>
                  <th scope="col">Actual</th>
                  <th scope="col">On time</th>
                  <th scope="col">Measured chunks</th>
                  <th scope="col">Promise from</th>
                </tr>
              </thead>
              <tbody>
                {[...rows]
                  .sort((a, b) => a.scene_id - b.scene_id)
                  .map((row) => (
                    <tr key={row.scene_id}>
                      <th scope="row">{row.scene_name}</th>
                      <td>{formatCount(row.renders)}</td>
                      <td>{seconds(row.promised_seconds)}</td>
                      <td>{seconds(row.actual_seconds)}</td>
                      <td>{row.renders > 0 ? `${Math.round((100 * row.on_time) / row.renders)}%` : NOT_AVAILABLE}</td>
                      <td>{formatCount(row.measured_chunks)}</td>
                      <td>
                        {row.measured_chunks >= CALIBRATION_MIN_CHUNKS ? (
                          <span className="admin-badge green">production</span>
                        ) : (
                          <span className="admin-badge gray">bench</span>
                        )}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
          <p className="muted admin-note">
            {`${formatShortDate(window.from)} to ${formatShortDate(window.to)}, whatever the range above. A scene's promise follows its measured chunks from ${CALIBRATION_MIN_CHUNKS} on, the bench's figures before.`}
          </p>
        </>
      )}
    </article>
  );
}
