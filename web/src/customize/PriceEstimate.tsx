/** The price estimate (from the shared calculator, as the server charges) and its breakdown dialog. */
import { useState, type ReactNode } from 'react';
import type { RenderCostResult } from '#shared/pricing';
import { formatUsd } from '#shared/pricing';
import { Modal } from '../components/Modal';
import { Tooltip } from '../components/ui';
import { formatMinutes } from './form-state';

export function PriceBreakdownDialog({ quote, frames, onClose }: { quote: RenderCostResult; frames: number; onClose: () => void }) {
  const b = quote.breakdown;
  const rows: [string, string][] = [
    ['Estimated render time', b.renderTime],
    ['Machine start-up and shutdown', b.shutdownTime],
    ['Cloud computing', b.cloudCost],
    ['Server and storage', b.serverStorageCost],
    ['Service margin', b.profitMultiplier],
    ['Payment processing fees', b.stripeFees],
  ];
  if (b.audioVisualizerDetails) {
    rows.push(
      ['Audio setup time', b.audioVisualizerDetails.setupTime],
      ['Time per frame', b.audioVisualizerDetails.perFrameTime],
      ['Total frames', b.audioVisualizerDetails.totalFrames],
      ['Resolution scaling', b.audioVisualizerDetails.resolutionScaling],
    );
  } else {
    rows.push(['Frames', String(frames)]);
  }
  return (
    <Modal
      title="Detailed Price Breakdown"
      onClose={onClose}
      footer={
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Close
        </button>
      }
    >
      <table className="breakdown">
        <caption className="sr-only">How the price is calculated</caption>
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{value}</td>
            </tr>
          ))}
          <tr className="total">
            <th scope="row">Total price</th>
            <td>{formatUsd(quote.finalPrice)}</td>
          </tr>
        </tbody>
      </table>
      <p className="hint" style={{ marginTop: 12 }}>
        You pay the estimate shown, fixed before the render starts. Credits are worth $1.00 each. If a paid render fails,
        its price is refunded as credits.
      </p>
    </Modal>
  );
}

/** readyIn: the time until the result should be stored (ReadyIn: shared/fast-path.ts), the promise; a paid render's billed minutes beside it. */
export function PriceEstimate({ quote, frames, isTest, readyIn }: { quote: RenderCostResult; frames: number; isTest: boolean; readyIn?: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="price-box" aria-live="polite">
      <div className="price-line">
        <span className="field-label">
          Price estimate <Tooltip text="Computed from the scene, render mode, resolution and media length — the same calculation we charge with." />
        </span>
        {isTest ? (
          <span className="price-amount free">Free</span>
        ) : (
          <span className="price-amount">{formatUsd(quote.finalPrice)}</span>
        )}
      </div>
      <div className="price-meta">
        {readyIn !== undefined && <span>ready in {readyIn}</span>}
        {/* The minutes the price is computed from: a paid render's billing, not a wait (a free test is not billed). */}
        {!isTest && <span>{formatMinutes(quote.estimatedRenderTimeMinutes)} billed render time</span>}
        <span>
          {frames} frame{frames === 1 ? '' : 's'}
        </span>
        {!isTest && <span>or {quote.finalPrice.toFixed(2)} credits</span>}
      </div>
      {isTest ? (
        <p className="hint" style={{ margin: 0 }}>
          Test renders are free and carry a small PREVIEW mark in a corner. The full render would cost {formatUsd(quote.finalPrice)}.
        </p>
      ) : null}
      <div>
        <button type="button" className="link-button" onClick={() => setOpen(true)}>
          View detailed price breakdown
        </button>
      </div>
      {open && <PriceBreakdownDialog quote={quote} frames={frames} onClose={() => setOpen(false)} />}
    </div>
  );
}
