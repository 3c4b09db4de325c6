/**
 * /customize/{sceneId}: example images (then the live preview of the settings) on the
 * left third, the form on the right two thirds. The form's state lives here; the render
 * flow after it (confirm, pay, start) in useRenderSubmission.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import type { Scene } from '#shared/catalogue';
import { getScene, requiredUploadKind } from '#shared/catalogue';
import { SCENE_NOT_FOUND } from '#shared/messages';
import { Notice } from '../components/ui';
import { useSession } from '../lib/session';
import { STORAGE_KEYS, writeStorage } from '../lib/storage-keys';
import { CustomizeHead } from './CustomizeIntro';
import { IncompleteRenderBanner } from './IncompleteRenderBanner';
import { ConfirmRenderModal, RenderPaymentModal, summarizeOptions } from './RenderModals';
import { RenderSettingsForm } from './RenderSettingsForm';
import { ScenePreview } from './ScenePreview';
import { VerificationNotice } from './VerificationNotice';
import { loadFormSettings, quoteFor, restoreFormState, saveFormSettings, validationErrors, type FormState, type UploadState } from './form-state';
import { useRenderSubmission } from './use-render-submission';
import { keepUpload, takeKeptUpload } from './kept-upload';

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

function CustomizeScene({ scene }: { scene: Scene }) {
  const { user, profile, emailVerified } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const saved = useMemo(() => loadFormSettings(scene), [scene]);
  // A stored upload comes back when the page opens again in this tab (after a free test, say): no second upload.
  const [state, setState] = useState<FormState>(() => ({ ...restoreFormState(scene, saved), upload: takeKeptUpload(user?.userId, scene.id) }));
  const [lostFile] = useState(() => (saved?.fileInfo && requiredUploadKind(scene) ? saved.fileInfo.name : null));
  const [templateRatio, setTemplateRatio] = useState<number | null>(null);

  useEffect(() => saveFormSettings(scene, state), [scene, state]);
  // The upload and its owner as the page leaves them (the effect below runs once, at the end).
  const leaving = useRef({ userId: user?.userId, upload: state.upload });
  useEffect(() => {
    leaving.current = { userId: user?.userId, upload: state.upload };
  }, [user?.userId, state.upload]);
  useEffect(() => {
    // A stored upload is kept for the page's next visit; any other releases its picture's object URL.
    return () => keepUpload(leaving.current.userId, scene.id, leaving.current.upload);
  }, [scene.id]);

  const quote = quoteFor(scene, state);
  const price = quote.finalPrice;
  const errors = validationErrors(scene, state, { signedIn: Boolean(user), emailVerified });
  const uploadKind = requiredUploadKind(scene);
  const update = (changes: Partial<FormState>) => setState((current) => ({ ...current, ...changes }));
  const setUpload = (fn: (current: UploadState | null) => UploadState | null) => setState((current) => ({ ...current, upload: fn(current.upload) }));
  const flow = useRenderSubmission(scene, state, update, price, templateRatio);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    flow.clearStartError();
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
    flow.openConfirm();
  };

  return (
    <section className="container page">
      <CustomizeHead scene={scene} />

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
        <ScenePreview scene={scene} state={state} frames={quote.frames} templateRatio={templateRatio} />
        <RenderSettingsForm
          scene={scene}
          state={state}
          update={update}
          setUpload={setUpload}
          quote={quote}
          errors={errors}
          signedIn={Boolean(user)}
          startError={flow.startError}
          onTemplateRatio={setTemplateRatio}
          onSubmit={submit}
        />
      </div>

      {flow.confirmOpen && (
        <ConfirmRenderModal
          scene={scene}
          state={state}
          price={price}
          frames={quote.frames}
          optionSummary={summarizeOptions(scene, state)}
          onCancel={flow.cancelConfirm}
          onConfirm={flow.confirm}
        />
      )}
      {(state.formStep === 'payment' || (state.formStep === 'processing' && !state.isTest)) && (
        <RenderPaymentModal
          price={price}
          balance={profile?.credits}
          method={flow.method}
          onMethodChange={flow.setMethod}
          ticket={flow.ticket}
          busy={flow.busy}
          processing={state.formStep === 'processing'}
          error={flow.payError}
          onPayWithCredits={flow.payWithCredits}
          onContinueToCard={flow.continueToCard}
          onCardSucceeded={flow.cardPaid}
          onClose={flow.closePayment}
        />
      )}
    </section>
  );
}
