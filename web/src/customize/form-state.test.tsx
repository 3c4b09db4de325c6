import { describe, expect, it } from 'vitest';
import { getScene } from '#shared/catalogue';
import { MISSING_AUDIO, MISSING_IMAGE, VERIFY_EMAIL_TO_RENDER } from '#shared/messages';
import { quoteRender } from '#shared/pricing';
import {
  CUSTOM_TEXT_REQUIRED,
  UPLOAD_IN_PROGRESS,
  buildJobRequest,
  buildPreviewRequest,
  defaultPaymentMethod,
  initialFormState,
  loadFormSettings,
  quoteFor,
  restoreFormState,
  saveFormSettings,
  validationErrors,
  type UploadState,
} from './form-state';

const textScene = getScene(1)!;
const busStop = getScene(6)!;
const audioScene = getScene(3)!;
const signedIn = { signedIn: true, emailVerified: true };

const uploaded = (changes: Partial<UploadState> = {}): UploadState => ({
  name: 'poster.png',
  originalName: 'poster.png',
  type: 'image/png',
  size: 1000,
  lastModified: 1,
  status: 'uploaded',
  progress: 1,
  key: 'uploads/u1/abc/poster.png',
  width: 1200,
  height: 1600,
  ...changes,
});

describe('customise form state', () => {
  it('when a scene opens, it starts from the scene defaults', () => {
    const state = initialFormState(getScene(5)!);
    expect(state.mode).toBe('animation');
    expect(state.options).toEqual({ backgroundColor: '#1a1a2e' });
    expect([state.resolutionX, state.resolutionY]).toEqual(['1920', '1080']);
    expect(state.formStep).toBe('config');
    expect(state.isTest).toBe(false);
  });

  it('when settings are saved, they are restored for the same scene only, without the file', () => {
    const state = { ...initialFormState(textScene), customText: 'Hello', resolutionX: '99999', isTest: true, options: { backgroundStyle: 'hot', textColor: '#ff0000' } };
    saveFormSettings(textScene, state);
    const saved = loadFormSettings(textScene);
    expect(saved).toMatchObject({ customText: 'Hello', resolutionX: 4096, isTest: true, options: 'backgroundStyle:hot;textColor:#ff0000', blendFile: 'text_animation.blend', sceneType: 'text' });
    expect(loadFormSettings(busStop)).toBeNull();
    const restored = restoreFormState(textScene, saved);
    expect(restored).toMatchObject({ customText: 'Hello', resolutionX: '4096', isTest: true, options: { backgroundStyle: 'hot', textColor: '#ff0000' }, upload: null, formStep: 'config' });
  });

  it('when an image was chosen before signing in, the saved settings remember it must be uploaded again', () => {
    saveFormSettings(busStop, { ...initialFormState(busStop), upload: uploaded({ status: 'local', key: undefined }) });
    expect(loadFormSettings(busStop)).toMatchObject({ pendingFileUpload: true, fileInfo: { name: 'poster.png', extension: 'png' }, showImagePreview: true });
  });

  it("when required inputs are missing, it lists the product's messages", () => {
    expect(validationErrors(textScene, initialFormState(textScene), signedIn)).toEqual([CUSTOM_TEXT_REQUIRED]);
    expect(validationErrors(busStop, initialFormState(busStop), signedIn)).toEqual([MISSING_IMAGE]);
    expect(validationErrors(audioScene, initialFormState(audioScene), signedIn)).toEqual([MISSING_AUDIO]);
    expect(validationErrors(busStop, initialFormState(busStop), { signedIn: true, emailVerified: false })).toEqual([VERIFY_EMAIL_TO_RENDER, MISSING_IMAGE]);
    expect(validationErrors(busStop, { ...initialFormState(busStop), upload: uploaded({ status: 'uploading', progress: 0.5 }) }, signedIn)).toEqual([UPLOAD_IN_PROGRESS]);
    expect(validationErrors(busStop, { ...initialFormState(busStop), upload: uploaded() }, signedIn)).toEqual([]);
  });

  it('when the media is measured, the estimate is the shared calculator with that duration', () => {
    const state = { ...initialFormState(audioScene), upload: uploaded({ type: 'audio/wav', durationSeconds: 30, width: undefined, height: undefined }) };
    expect(quoteFor(audioScene, state).finalPrice).toBe(quoteRender(audioScene, { mode: 'animation', resolutionX: 1920, resolutionY: 1080, mediaDurationSeconds: 30 }).finalPrice);
    expect(quoteFor(audioScene, state).frames).toBe(900);
  });

  it('when building the job request, it carries the settings, upload and alignment', () => {
    const state = { ...initialFormState(busStop), upload: uploaded(), resolutionX: '100' };
    const request = buildJobRequest(busStop, state, 'credits', 1.5);
    expect(request).toMatchObject({
      sceneId: 6,
      mode: 'still',
      resolutionX: 128,
      resolutionY: 1080,
      uploadKey: 'uploads/u1/abc/poster.png',
      fileWidth: 1200,
      fileHeight: 1600,
      isTest: false,
      paymentMethod: 'credits',
      alignment: { scale: 100, x: 0, y: 0, opacity: 50, blendMode: 'normal', aspectRatioMatch: false },
    });
    expect(buildJobRequest(textScene, { ...initialFormState(textScene), customText: '  Hi  ' }, 'card', null)).toMatchObject({ customText: 'Hi', options: 'backgroundStyle:cold;textColor:#ffffff' });
  });

  it("when only the template overlay's opacity or blend mode changes, the live preview's request stays the same (the render ignores both)", () => {
    const state = { ...initialFormState(busStop), upload: uploaded() };
    const before = buildPreviewRequest(busStop, state, 1.5);
    const after = buildPreviewRequest(busStop, { ...state, alignment: { ...state.alignment, opacity: 90, blendMode: 'multiply' } }, 1.5);
    expect(after).toEqual(before);
    const moved = buildPreviewRequest(busStop, { ...state, alignment: { ...state.alignment, x: 20 } }, 1.5);
    expect(moved?.alignment?.x).toBe(20);
  });
});

describe('payment method default', () => {
  it('when the balance covers the price, it is credits', () => {
    expect(defaultPaymentMethod(10, 9.99)).toBe('credits');
    expect(defaultPaymentMethod(2.27, 2.27)).toBe('credits');
  });
  it('when the balance does not cover the price or is unknown, it is card', () => {
    expect(defaultPaymentMethod(2.26, 2.27)).toBe('card');
    expect(defaultPaymentMethod(0, 1)).toBe('card');
    expect(defaultPaymentMethod(undefined, 1)).toBe('card');
  });
});
