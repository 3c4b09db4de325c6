/**
 * /customize/{sceneId}: example images on the left third, the form on the right two
 * thirds. Steps: config → (Confirm Render Settings) → payment → processing, then
 * /job-history. Credits go config → processing and back to payment on failure; a card
 * goes config → payment (card form) → processing.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import type { PaymentTicket } from '../../../shared/api-types';
import type { Scene } from '../../../shared/catalogue';
import { BACKGROUND_STYLE_OPTION, exampleImagesFor, getScene, previewVideoFor, requiredUploadKind } from '../../../shared/catalogue';
import { DEFAULT_END_FRAME, clampResolution } from '../../../shared/files';
import {
  NO_JOB_ID,
  PAYMENT_INTENT_FAILED,
  SCENE_NOT_FOUND,
  VERIFY_EMAIL_TO_RENDER,
  paymentProcessingError,
  renderStartFailed,
  verificationEmailFailed,
} from '../../../shared/messages';
import { formatUsd } from '../../../shared/pricing';
import { MAX_CUSTOM_TEXT_LENGTH } from '../../../shared/schemas';
import { trackRenderStart } from '../analytics';
import { SCENE_TYPE_LABEL, SceneTypeIcon } from '../components/Icons';
import { PreviewImage } from '../components/SceneCard';
import { Notice, Tooltip } from '../components/ui';
import { ApiError, api } from '../lib/api';
import { newIdempotencyKey } from '../lib/idempotency';
import { errorMessage, resendVerificationEmail } from '../lib/auth';
import { useSession } from '../lib/session';
import { STORAGE_KEYS, writeStorage } from '../lib/storage-keys';
import { AlignmentPreview } from './AlignmentPreview';
import { IncompleteRenderBanner } from './IncompleteRenderBanner';
import { OptionsForm, hasOptions } from './OptionsForm';
import { OutputFormatField } from './OutputFormatField';
import { PriceEstimate } from './PriceEstimate';
import { readyInSeconds } from '../../../shared/fast-path';
import { ConfirmRenderModal, RenderPaymentModal } from './RenderModals';
import { ResolutionFields } from './ResolutionFields';
import { UploadField } from './UploadField';
import {
  backgroundStyleOf,
  buildJobRequest,
  defaultPaymentMethod,
  effectiveOutputFormat,
  formatMinutes,
  loadFormSettings,
  quoteFor,
  restoreFormState,
  saveFormSettings,
  validationErrors,
  type FormState,
  type PaymentMethod,
  type UploadState,
} from './form-state';

export default function CustomizePage() {
  const { sceneId = '' } = useParams();
  const scene = getScene(sceneId);
  if (!scene) {
    return (
      <section className="container page narrow center">
        <h1>{SCENE_NOT_FOUND}</h1>
        <p className="muted">There is no scene with the id “{sceneId}”.</p>
        <Link to="/" className="btn btn-primary">
          Explore Scenes
        </Link>
      </section>
    );
  }
  return <CustomizeScene key={scene.id} scene={scene} />;
}

function ScenePreview({ scene, state, frames }: { scene: Scene; state: FormState; frames: number }) {
  const style = backgroundStyleOf(state);
  const images = exampleImagesFor(scene, style);
  const video = previewVideoFor(scene, style);
  const [selected, setSelected] = useState(0);
  const [videoFailed, setVideoFailed] = useState(false);
  const showVideo = video && !videoFailed && selected === 0;
  const previewFrames = state.mode === 'still' ? (scene.endFrame ?? DEFAULT_END_FRAME) : frames;
  return (
    <aside className="customize-aside" aria-label="Scene preview">
      <div className="preview-area">
        {showVideo ? (
          <video key={video} src={video} poster={images[0]} autoPlay muted loop playsInline aria-label={`${scene.title} preview animation`} onError={() => setVideoFailed(true)} />
        ) : (
          <PreviewImage key={images[selected]} src={images[selected]} alt={`${scene.title} example`} />
        )}
        <span className="preview-caption">
          Preview · {previewFrames} frames at 30 fps
        </span>
      </div>
      {images.length > 1 && (
        <div className="thumbs" role="group" aria-label="Example images">
          {images.map((image, index) => (
            <button key={image} type="button" aria-pressed={selected === index} aria-label={`Example ${index + 1}`} onClick={() => setSelected(index)}>
              <img src={image} alt="" />
            </button>
          ))}
        </div>
      )}
      <dl className="aside-facts">
        <div className="fact">
          <dt>Type</dt>
          <dd>
            <SceneTypeIcon type={scene.type} /> {SCENE_TYPE_LABEL[scene.type]}
          </dd>
        </div>
        <div className="fact">
          <dt>
            Modes <Tooltip text="Still renders one image; animation renders every frame as a video." />
          </dt>
          <dd>{scene.supportsModes.map((mode) => (mode === 'still' ? 'Still' : 'Animation')).join(' · ')}</dd>
        </div>
        <div className="fact">
          <dt>
            Transparent <Tooltip text="Whether the scene can drop its background: a transparent PNG or a WebM with alpha, to composite over your own footage." />
          </dt>
          <dd>{scene.canDropBackground ? 'Available' : 'Not available'}</dd>
        </div>
        <div className="fact">
          <dt>Starting at</dt>
          <dd>{formatUsd(scene.price)}</dd>
        </div>
        <div className="fact">
          <dt>
            Frames <Tooltip text="Animations render at 30 frames per second. Audio scenes render one frame per 1/30 s of your track." />
          </dt>
          <dd>{frames}</dd>
        </div>
      </dl>
    </aside>
  );
}

function optionSummary(scene: Scene, state: FormState): string[] {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  const summary: string[] = [];
  const style = backgroundStyles?.find((s) => s.id === state.options[BACKGROUND_STYLE_OPTION]);
  if (style) summary.push(`${style.label} style`);
  if (colorPicker) summary.push(`${colorPicker.label} ${state.options[colorPicker.id]?.toUpperCase()}`);
  for (const slider of sliders) summary.push(`${slider.label} ${state.options[slider.id]}`);
  return summary;
}

function VerificationNotice({ email }: { email: string }) {
  const [state, setState] = useState<'idle' | 'sent' | string>('idle');
  return (
    <Notice
      kind="warning"
      title={VERIFY_EMAIL_TO_RENDER}
      actions={
        state !== 'sent' && (
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() =>
              resendVerificationEmail(email).then(
                () => setState('sent'),
                (error) => setState(verificationEmailFailed(errorMessage(error))),
              )
            }
          >
            Resend verification email
          </button>
        )
      }
    >
      {state === 'sent' ? 'Verification email sent!' : state === 'idle' ? 'Open the link in the email we sent you, then come back here.' : state}
    </Notice>
  );
}

function CustomizeScene({ scene }: { scene: Scene }) {
  const { user, profile, emailVerified, refreshProfile } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const saved = useMemo(() => loadFormSettings(scene), [scene]);
  const [state, setState] = useState<FormState>(() => restoreFormState(scene, saved));
  const [lostFile] = useState(() => (saved?.fileInfo && requiredUploadKind(scene) ? saved.fileInfo.name : null));
  const [templateRatio, setTemplateRatio] = useState<number | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [method, setMethod] = useState<PaymentMethod>('card');
  const [ticket, setTicket] = useState<PaymentTicket | null>(null);
  const [payError, setPayError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);

  useEffect(() => saveFormSettings(scene, state), [scene, state]);
  useEffect(() => {
    // Object URLs of image previews are released when the page goes away.
    return () => {
      if (state.upload?.previewUrl) URL.revokeObjectURL(state.upload.previewUrl);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const quote = quoteFor(scene, state);
  const price = quote.finalPrice;
  const errors = validationErrors(scene, state, { signedIn: Boolean(user), emailVerified });
  const uploadKind = requiredUploadKind(scene);
  const update = (changes: Partial<FormState>) => setState((current) => ({ ...current, ...changes }));
  const setUpload = (fn: (current: UploadState | null) => UploadState | null) => setState((current) => ({ ...current, upload: fn(current.upload) }));
  const outputRatio = clampResolution(state.resolutionX) / clampResolution(state.resolutionY);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setStartError(null);
    if (!user) {
      saveFormSettings(scene, state);
      writeStorage('session', STORAGE_KEYS.redirectAfterLogin, location.pathname);
      navigate('/login');
      return;
    }
    if (errors.length > 0) {
      update({ showErrors: true });
      return;
    }
    setConfirmOpen(true);
  };

  const startRender = async (paymentMethod: PaymentMethod) => {
    update({ formStep: 'processing' });
    setPayError(null);
    try {
      const response = await api.createJob(buildJobRequest(scene, state, paymentMethod, templateRatio), submissionKey(paymentMethod));
      if (!response.job?.jobId) throw new Error(NO_JOB_ID);
      trackRenderStart(scene.id);
      void refreshProfile();
      navigate('/job-history');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (state.isTest) {
        update({ formStep: 'config' });
        setStartError(renderStartFailed(message));
      } else {
        update({ formStep: 'payment' });
        const paymentProblem = !(error instanceof ApiError) || ['insufficient_credits', 'payment_required', 'network'].includes(error.code);
        setPayError(paymentProblem ? paymentProcessingError(message) : renderStartFailed(message));
      }
    }
  };

  // One key per confirmed submission (and payment method): a double click or a retry
  // after a network error reuses it, so the server makes one job and one debit.
  const submissionKeys = useRef<Partial<Record<PaymentMethod, string>>>({});
  const submissionKey = (paymentMethod: PaymentMethod) => (submissionKeys.current[paymentMethod] ??= newIdempotencyKey());

  const confirm = () => {
    submissionKeys.current = {};
    setConfirmOpen(false);
    if (state.isTest) {
      void startRender('credits');
      return;
    }
    setMethod(defaultPaymentMethod(profile?.credits, price));
    setTicket(null);
    setPayError(null);
    update({ formStep: 'payment' });
  };

  const continueToCard = async () => {
    setBusy(true);
    setPayError(null);
    try {
      const response = await api.createJob(buildJobRequest(scene, state, 'card', templateRatio), submissionKey('card'));
      if (!response.payment) throw new Error(PAYMENT_INTENT_FAILED);
      setTicket(response.payment);
    } catch (error) {
      setPayError(renderStartFailed(error instanceof Error ? error.message : undefined));
    } finally {
      setBusy(false);
    }
  };

  const closePayment = () => {
    update({ formStep: 'config' });
    setTicket(null);
    setPayError(null);
    if (ticket) navigate('/job-history'); // the job exists, awaiting payment: it can be paid or abandoned there
  };

  return (
    <section className="container page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/">Scenes</Link> <span aria-hidden="true">/</span> <span>{scene.title}</span>
      </nav>
      <div className="customize-head">
        <div>
          <h1>Customize Scene {scene.id}</h1>
          <p className="scene-subtitle">
            <strong>{scene.title}</strong>
          </p>
          <p className="description">{scene.description}</p>
        </div>
      </div>

      {user && !emailVerified && <VerificationNotice email={user.email} />}
      {user && emailVerified && <IncompleteRenderBanner scene={scene} />}
      {lostFile && !state.upload && (
        <Notice kind="info" title="Please upload your file again">
          Your settings were restored, but files cannot be restored after signing in. Please choose “{lostFile}” again.
        </Notice>
      )}
      {!user && uploadKind && (
        <Notice kind="info">
          You can set everything up now and sign in when you render. Your settings are kept while you sign in, but files
          cannot be carried over: you will upload your file again afterwards.
        </Notice>
      )}

      <div className="customize-layout">
        <ScenePreview scene={scene} state={state} frames={quote.frames} />

        <form className="panel" onSubmit={submit} noValidate aria-label="Render settings">
          {scene.supportsModes.length > 1 && (
            <fieldset className="form-section">
              <legend>Render Mode</legend>
              <div className="segmented">
                {scene.supportsModes.map((mode) => (
                  <label key={mode}>
                    <input type="radio" name="render-mode" value={mode} checked={state.mode === mode} onChange={() => update({ mode })} />
                    <span>{mode === 'still' ? 'Still Image' : 'Animation'}</span>
                  </label>
                ))}
              </div>
            </fieldset>
          )}

          {scene.type === 'text' && (
            <div className="form-section">
              <div className="field">
                <label htmlFor="custom-text" className="section-title">
                  Custom Text
                </label>
                <input
                  id="custom-text"
                  className="input"
                  maxLength={MAX_CUSTOM_TEXT_LENGTH}
                  placeholder="Type the words to render"
                  value={state.customText}
                  onChange={(event) => update({ customText: event.target.value })}
                />
                <span className="hint">
                  {state.customText.length}/{MAX_CUSTOM_TEXT_LENGTH} characters
                </span>
              </div>
            </div>
          )}

          {uploadKind && (
            <fieldset className="form-section">
              <legend>{uploadKind === 'image' ? 'Your Image' : uploadKind === 'model' ? 'Your 3D Model' : 'Your Audio'}</legend>
              <UploadField scene={scene} upload={state.upload} signedIn={Boolean(user)} onChange={setUpload} />
            </fieldset>
          )}

          {scene.type === 'image' && state.upload?.previewUrl && state.upload.status !== 'error' && (
            <fieldset className="form-section">
              <legend>Image Alignment Preview</legend>
              <AlignmentPreview
                scene={scene}
                upload={state.upload}
                alignment={state.alignment}
                outputRatio={outputRatio}
                onChange={(alignment) => update({ alignment })}
                onTemplateRatio={setTemplateRatio}
              />
            </fieldset>
          )}

          {hasOptions(scene) && (
            <fieldset className="form-section">
              <legend>Customize Options</legend>
              <OptionsForm scene={scene} values={state.options} onChange={(key, value) => update({ options: { ...state.options, [key]: value } })} />
            </fieldset>
          )}

          <fieldset className="form-section">
            <legend>Resolution</legend>
            <ResolutionFields x={state.resolutionX} y={state.resolutionY} onChange={(resolutionX, resolutionY) => update({ resolutionX, resolutionY })} />
          </fieldset>

          <fieldset className="form-section">
            <legend>Output Format</legend>
            <OutputFormatField scene={scene} mode={state.mode} value={effectiveOutputFormat(scene, state)} onChange={(outputFormat) => update({ outputFormat })} />
          </fieldset>

          <div className="form-section">
            <PriceEstimate
              quote={quote}
              frames={quote.frames}
              isTest={state.isTest}
              readyIn={readyInSeconds({ sceneId: scene.id, resolutionX: clampResolution(state.resolutionX), resolutionY: clampResolution(state.resolutionY), isTest: state.isTest, totalFrames: state.mode === 'still' ? 1 : quote.frames, isStill: state.mode === 'still' })}
            />
            <label className="checkbox" style={{ marginTop: 14 }}>
              <input type="checkbox" checked={state.isTest} onChange={(event) => update({ isTest: event.target.checked })} />
              <span>
                <strong>Test render (free)</strong>
                <br />
                <span className="hint">A quick free render with a PREVIEW watermark, to check your settings before paying.</span>
              </span>
            </label>
          </div>

          {startError && (
            <p className="form-error" role="alert" style={{ marginTop: 16 }}>
              {startError}
            </p>
          )}

          {errors.length > 0 && user && (
            <div className="errors-panel" style={{ marginTop: 16 }}>
              <button type="button" className="btn btn-ghost btn-small" aria-expanded={state.showErrors} aria-controls="form-errors" onClick={() => update({ showErrors: !state.showErrors })}>
                {state.showErrors ? 'Hide Errors' : 'Show Errors'} ({errors.length})
              </button>
              {state.showErrors && (
                <div id="form-errors" className="notice notice-error" role="alert" style={{ marginTop: 8 }}>
                  <ul>
                    {errors.map((error) => (
                      <li key={error}>{error}</li>
                    ))}
                  </ul>
                </div>
              )}
            </div>
          )}

          <div className="submit-row">
            <button type="submit" className="btn btn-gradient btn-large btn-block" disabled={state.formStep === 'processing'}>
              {!user ? 'Sign In & Render' : state.isTest ? 'Start Free Test Render' : `Render for ${formatUsd(price)}`}
            </button>
            <p className="hint center">
              Estimated {formatMinutes(quote.estimatedRenderTimeMinutes)} of rendering · you confirm before paying
            </p>
          </div>
        </form>
      </div>

      {confirmOpen && (
        <ConfirmRenderModal
          scene={scene}
          state={state}
          price={price}
          frames={quote.frames}
          minutes={quote.estimatedRenderTimeMinutes}
          optionSummary={optionSummary(scene, state)}
          onCancel={() => setConfirmOpen(false)}
          onConfirm={confirm}
        />
      )}
      {(state.formStep === 'payment' || (state.formStep === 'processing' && !state.isTest)) && (
        <RenderPaymentModal
          price={price}
          balance={profile?.credits}
          method={method}
          onMethodChange={setMethod}
          ticket={ticket}
          busy={busy}
          processing={state.formStep === 'processing'}
          error={payError}
          onPayWithCredits={() => void startRender('credits')}
          onContinueToCard={() => void continueToCard()}
          onCardSucceeded={() => {
            trackRenderStart(scene.id);
            update({ formStep: 'processing' });
            void refreshProfile();
            navigate('/job-history');
          }}
          onClose={closePayment}
        />
      )}
    </section>
  );
}
