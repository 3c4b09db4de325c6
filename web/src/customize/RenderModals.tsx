/** The render flow's modals: 'Confirm Render Settings' and 'Payment for Render'. */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { PaymentTicket } from '#shared/api-types';
import { BACKGROUND_STYLE_OPTION, type Scene } from '#shared/catalogue';
import { TEST_RENDER_MAX_FRAMES, TEST_RENDER_MAX_SECONDS, TEST_RENDER_MAX_SIDE, renderedResolution } from '#shared/render-policy';
import { insufficientCredits } from '#shared/messages';
import { formatUsd } from '#shared/pricing';
import { Modal } from '../components/Modal';
import { Spinner } from '../components/ui';
import { formatCredits } from '../components/Layout';
import { CardPayment } from '../payments/CardPayment';
import type { FormState, PaymentMethod } from './form-state';
import { renderSettingsOf } from './form-state';
import { ReadyIn } from './ReadyIn';

/** The options as the confirm dialog lists them: style, colour, sliders. */
export function summarizeOptions(scene: Scene, state: FormState): string[] {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  const summary: string[] = [];
  const style = backgroundStyles?.find((s) => s.id === state.options[BACKGROUND_STYLE_OPTION]);
  if (style) summary.push(`${style.label} style`);
  if (colorPicker) summary.push(`${colorPicker.label} ${state.options[colorPicker.id]?.toUpperCase()}`);
  for (const slider of sliders) summary.push(`${slider.label} ${state.options[slider.id]}`);
  return summary;
}

export function ConfirmRenderModal({
  scene,
  state,
  price,
  frames,
  optionSummary,
  onCancel,
  onConfirm,
}: {
  scene: Scene;
  state: FormState;
  price: number;
  frames: number;
  optionSummary: string[];
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const settings = renderSettingsOf(scene, state);
  const size = renderedResolution({ resolution_x: settings.resolutionX, resolution_y: settings.resolutionY, isTest: state.isTest });
  return (
    <Modal
      title="Confirm Render Settings"
      onClose={onCancel}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            Back to Editing
          </button>
          <button type="button" className="btn btn-primary" onClick={onConfirm} data-autofocus>
            {state.isTest ? 'Start Free Test Render' : 'Continue to Payment'}
          </button>
        </>
      }
    >
      {state.isTest ? (
        <p className="muted">
          A free test render is a preview of these settings: its longer side is scaled down to {TEST_RENDER_MAX_SIDE} px, an animation renders at
          most {TEST_RENDER_MAX_FRAMES} frames ({TEST_RENDER_MAX_SECONDS} s), and every frame carries a small PREVIEW mark in its bottom-right corner,
          as the live preview does, so your text and image stay readable. The values below are what it produces.
        </p>
      ) : (
        <p className="muted">Please check your settings. The render uses exactly these values.</p>
      )}
      <dl className="summary-list">
        <dt>Scene</dt>
        <dd>{scene.title}</dd>
        <dt>Render mode</dt>
        <dd>{state.mode === 'still' ? 'Still Image' : 'Animation'}</dd>
        <dt>Resolution</dt>
        <dd>
          {size.x} × {size.y}
          {state.isTest && (size.x !== settings.resolutionX || size.y !== settings.resolutionY) && (
            <span className="muted">
              {' '}
              (test render; {settings.resolutionX} × {settings.resolutionY} when paid for)
            </span>
          )}
        </dd>
        {scene.type === 'text' && (
          <>
            <dt>Custom text</dt>
            <dd>{state.customText}</dd>
          </>
        )}
        {state.upload && (
          <>
            <dt>File</dt>
            <dd>{state.upload.name}</dd>
          </>
        )}
        {optionSummary.length > 0 && (
          <>
            <dt>Options</dt>
            <dd>{optionSummary.join(', ')}</dd>
          </>
        )}
        <dt>Frames</dt>
        <dd>{frames}</dd>
        <dt>Ready in</dt>
        <dd>
          <ReadyIn scene={scene} state={state} />
        </dd>
        <dt>Price</dt>
        <dd>{state.isTest ? 'Free test render (PREVIEW watermark)' : formatUsd(price)}</dd>
      </dl>
    </Modal>
  );
}

/** One radio card of the payment dialog's method choice; `badge` sits at the card's end. */
function PayMethodCard({
  value,
  method,
  onMethodChange,
  title,
  detail,
  badge,
}: {
  value: PaymentMethod;
  method: PaymentMethod;
  onMethodChange: (method: PaymentMethod) => void;
  title: string;
  detail: ReactNode;
  badge?: ReactNode;
}) {
  return (
    <label className="choice pay-method">
      <input type="radio" name="payment-method" value={value} checked={method === value} onChange={() => onMethodChange(value)} />
      <span className="choice-card">
        <span>
          <strong>{title}</strong>
          <br />
          <small>{detail}</small>
        </span>
        {badge}
      </span>
    </label>
  );
}

export function RenderPaymentModal({
  price,
  balance,
  method,
  onMethodChange,
  ticket,
  busy,
  processing,
  error,
  onPayWithCredits,
  onContinueToCard,
  onCardSucceeded,
  onClose,
}: {
  price: number;
  balance: number | undefined;
  method: PaymentMethod;
  onMethodChange: (method: PaymentMethod) => void;
  ticket: PaymentTicket | null;
  busy: boolean;
  processing: boolean;
  error: string | null;
  onPayWithCredits: () => void;
  onContinueToCard: () => void;
  onCardSucceeded: () => void;
  onClose: () => void;
}) {
  const enough = balance !== undefined && balance >= price;
  return (
    <Modal title="Payment for Render" onClose={onClose} dismissable={!busy && !processing}>
      {processing ? (
        <div className="center" style={{ padding: '24px 0' }}>
          <Spinner label="Starting your render..." />
        </div>
      ) : ticket ? (
        <>
          <p>
            Pay <strong>{formatUsd(price)}</strong> by card. Your render starts as soon as the payment is confirmed.
          </p>
          <CardPayment ticket={ticket} submitLabel={`Pay ${formatUsd(price)} & Render`} onSucceeded={onCardSucceeded} />
        </>
      ) : (
        <>
          <div className="price-line">
            <span className="muted">Total</span>
            <span className="price-amount">{formatUsd(price)}</span>
          </div>
          <fieldset className="form-section">
            <legend className="sr-only">Payment method</legend>
            <div className="pay-methods">
              <PayMethodCard
                value="credits"
                method={method}
                onMethodChange={onMethodChange}
                title="Pay with credits"
                detail={<>Balance: {balance === undefined ? '—' : `${formatCredits(balance)} credits`} · uses {price.toFixed(2)} credits</>}
                badge={enough ? <span className="badge badge-green">Covers it</span> : <span className="badge badge-yellow">Not enough</span>}
              />
              <PayMethodCard
                value="card"
                method={method}
                onMethodChange={onMethodChange}
                title="Pay by card"
                detail="Visa, Mastercard, American Express and more"
              />
            </div>
          </fieldset>
          {method === 'credits' && !enough && (
            <p className="form-error" role="alert">
              {insufficientCredits(price)} <Link to="/profile?tab=credits">Buy credits</Link>
            </p>
          )}
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <div className="submit-row">
            {method === 'credits' ? (
              <button type="button" className="btn btn-gradient btn-large btn-block" disabled={busy || !enough} onClick={onPayWithCredits}>
                Pay {price.toFixed(2)} Credits & Render
              </button>
            ) : (
              <button type="button" className="btn btn-gradient btn-large btn-block" disabled={busy} onClick={onContinueToCard}>
                {busy ? 'Preparing payment...' : 'Continue to Card Payment'}
              </button>
            )}
          </div>
        </>
      )}
    </Modal>
  );
}
