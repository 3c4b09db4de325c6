/** The customise form: mode, text, upload, alignment, options, resolution, format, price and the submit button. */
import type { FormEvent } from 'react';
import type { Scene } from '#shared/catalogue';
import { requiredUploadKind } from '#shared/catalogue';
import { clampResolution } from '#shared/resolution';
import { formatUsd, type RenderCostResult } from '#shared/pricing';
// The text limit itself (schemas.ts's MAX_CUSTOM_TEXT_LENGTH is this value): the schemas and zod
// load when the page validates, not with the form's first paint.
import { TEXT_LIMIT as MAX_CUSTOM_TEXT_LENGTH } from '#shared/render-manifest';
import { AlignmentPreview } from './AlignmentPreview';
import { OptionsForm, hasOptions } from './OptionsForm';
import { OutputFormatField } from './OutputFormatField';
import { PriceEstimate } from './PriceEstimate';
import { ReadyIn } from './ReadyIn';
import { ResolutionFields } from './ResolutionFields';
import { UploadField } from './UploadField';
import { effectiveOutputFormat, type FormState, type UploadState } from './form-state';

export interface RenderSettingsFormProps {
  scene: Scene;
  state: FormState;
  update: (changes: Partial<FormState>) => void;
  quote: RenderCostResult & { frames: number };
  errors: string[];
  signedIn: boolean;
  startError: string | null;
  onTemplateRatio: (ratio: number | null) => void;
  /** Functional, so an upload's progress never works on a stale copy of the form. */
  setUpload: (fn: (current: UploadState | null) => UploadState | null) => void;
  onSubmit: (event: FormEvent) => void;
}

export function RenderSettingsForm({ scene, state, update, quote, errors, signedIn, startError, onTemplateRatio, setUpload, onSubmit }: RenderSettingsFormProps) {
  const uploadKind = requiredUploadKind(scene);
  const user = signedIn;
  const price = quote.finalPrice;
  const outputRatio = clampResolution(state.resolutionX) / clampResolution(state.resolutionY);
  return (
        <form className="panel" onSubmit={onSubmit} noValidate aria-label="Render settings">
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
                onTemplateRatio={onTemplateRatio}
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
              readyIn={<ReadyIn scene={scene} state={state} />}
            />
            <label className="checkbox" style={{ marginTop: 14 }}>
              <input type="checkbox" checked={state.isTest} onChange={(event) => update({ isTest: event.target.checked })} />
              <span>
                <strong>Test render (free)</strong>
                <br />
                <span className="hint">A quick free render with a small PREVIEW mark in a corner, to check your settings before paying.</span>
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
              Ready in <ReadyIn scene={scene} state={state} /> · you confirm before {state.isTest ? 'it starts' : 'paying'}
            </p>
          </div>
        </form>
  );
}
