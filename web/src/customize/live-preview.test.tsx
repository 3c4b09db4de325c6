import { fireEvent, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LivePreview, LivePreviewStrip } from '#shared/api-types';
import { getScene } from '#shared/catalogue';
import { LIVE_PREVIEW_DEBOUNCE_MS, LIVE_PREVIEW_UNAVAILABLE, useLivePreview } from '../data/previews';
import { ApiError, api } from '../lib/api';
import { SessionTestProvider } from '../lib/session';
import { VERIFIED_USER, profileWith, renderWithApp, testQueryClient } from '../test/render';
import CustomizePage from './CustomizePage';
import { buildJobRequest, initialFormState } from './form-state';

vi.mock('../lib/api', async (actual) => ({
  ApiError: (await actual<typeof import('../lib/api')>()).ApiError,
  api: {
    jobs: vi.fn(async () => ({ jobs: [] })),
    favorites: vi.fn(async () => ({ favorites: [] })),
    livePreview: vi.fn(),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(),
}));

const livePreview = vi.mocked(api.livePreview);
const textScene = getScene(1)!;
const picture = (name: string) => `data:image/jpeg;base64,${btoa(name)}`;
const answer = (name: string): LivePreview => ({ image: picture(name) });

/** An answer the test sends when it chooses. */
function later() {
  let send!: (value: LivePreview | LivePreviewStrip) => void;
  const promise = new Promise<LivePreview | LivePreviewStrip>((resolve) => (send = resolve));
  return { promise, send };
}

function openCustomize(session = {}) {
  return renderWithApp(<CustomizePage />, { route: '/customize/1', path: '/customize/:sceneId', session });
}

async function typeText(text: string) {
  await userEvent.click(screen.getByLabelText('Custom Text'));
  await userEvent.paste(text);
}

const livePicture = () => screen.queryByRole('img', { name: 'Text Animation live preview' });
const stripPicture = () => screen.queryByRole('img', { name: /^Text Animation live preview, frame/ });
/** A strip of four frames of Text Animation's 120, each picture named by its text and frame. */
const stripAnswer = (name: string): LivePreviewStrip => ({ strip: { clipFrames: 120, frames: [1, 41, 80, 120].map((frame) => ({ frame, image: picture(`${name}@${frame}`) })) } });

beforeEach(() => vi.clearAllMocks());

describe('the live preview on the customise page', () => {
  it('when the customer pauses after a change, the preview of their settings replaces the example, labelled', async () => {
    livePreview.mockResolvedValue(answer('hello'));
    openCustomize();
    await waitFor(() => expect(api.warmPreviews).toHaveBeenCalledWith(1, false));
    expect(livePicture()).toBeNull();

    await typeText('Hello');
    // Nothing is asked while the customer may still be typing.
    expect(livePreview).not.toHaveBeenCalled();
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('hello')));
    expect(screen.getByText('Live preview')).toBeVisible();
    expect(screen.queryByLabelText('Text Animation preview animation')).not.toBeInTheDocument();

    // The job's own fields, as a visitor (the visitor's route), asked once.
    const { sceneId, resolutionX, resolutionY, options } = buildJobRequest(textScene, initialFormState(textScene), 'credits', null);
    expect(livePreview).toHaveBeenCalledTimes(1);
    expect(livePreview).toHaveBeenCalledWith({ sceneId, resolutionX, resolutionY, options, customText: 'Hello' }, false, expect.any(AbortSignal));
    expect(api.warmPreviews).toHaveBeenCalledTimes(1);
  });

  it('when a signed-in customer changes the text, the preview goes by their own route', async () => {
    livePreview.mockResolvedValue(answer('hi'));
    openCustomize({ user: VERIFIED_USER, profile: profileWith(50), emailVerified: true });
    await typeText('Hi');
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('hi')));
    expect(livePreview).toHaveBeenCalledWith(expect.objectContaining({ customText: 'Hi' }), true, expect.any(AbortSignal));
    expect(api.warmPreviews).toHaveBeenCalledWith(1, true);
  });

  it('when the first of two requests answers last, its picture is dropped and the newer one stays', async () => {
    const first = later();
    const second = later();
    livePreview.mockReturnValueOnce(first.promise).mockReturnValueOnce(second.promise);
    openCustomize();
    await typeText('Hello');
    await waitFor(() => expect(livePreview).toHaveBeenCalledTimes(1));
    await typeText(' World');
    await waitFor(() => expect(livePreview).toHaveBeenCalledTimes(2));
    expect(livePreview.mock.calls[1][0]).toMatchObject({ customText: 'Hello World' });
    // The overtaken request is cancelled.
    expect(livePreview.mock.calls[0][2]?.aborted).toBe(true);

    second.send(answer('hello world'));
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('hello world')));
    first.send(answer('hello'));
    await new Promise((done) => setTimeout(done, LIVE_PREVIEW_DEBOUNCE_MS));
    expect(livePicture()).toHaveAttribute('src', picture('hello world'));
    expect(screen.getByText('Live preview')).toBeVisible();
  });

  it('when the customer previews in Animation mode, the strip plays, and its scrubber is named, moves from the keyboard and announces the frame', async () => {
    livePreview.mockImplementation(async (request) => stripAnswer(request.customText ?? ''));
    openCustomize();
    await userEvent.click(screen.getByRole('radio', { name: 'Animation' }));
    await typeText('Hello');
    const scrubber = await screen.findByRole('slider', { name: 'Live preview frame' });
    // The strip of the clip the job would render is asked for.
    expect(livePreview).toHaveBeenLastCalledWith(expect.objectContaining({ customText: 'Hello', strip: {} }), false, expect.any(AbortSignal));
    expect(screen.getByText(/Live preview · 4 frames/)).toBeVisible();
    // It plays: the frame shown moves on by itself.
    const first = stripPicture()!.getAttribute('src');
    await waitFor(() => expect(stripPicture()!.getAttribute('src')).not.toBe(first), { timeout: 3000 });

    // From the keyboard: the scrubber takes the frame (and pauses the loop); Home and End reach the clip's ends.
    scrubber.focus();
    await userEvent.keyboard('{Home}');
    expect(scrubber).toHaveAttribute('aria-valuetext', 'frame 1 of 120');
    expect(stripPicture()).toHaveAttribute('src', picture('Hello@1'));
    await userEvent.keyboard('{ArrowRight}');
    expect(scrubber).toHaveAttribute('aria-valuetext', 'frame 41 of 120');
    expect(stripPicture()).toHaveAttribute('src', picture('Hello@41'));
    expect(stripPicture()).toHaveAccessibleName('Text Animation live preview, frame 41 of 120');
    await userEvent.keyboard('{End}');
    expect(scrubber).toHaveAttribute('aria-valuetext', 'frame 120 of 120');
    // Paused by the scrubber: the frame stays where the customer put it.
    await new Promise((done) => setTimeout(done, 1500));
    expect(stripPicture()).toHaveAttribute('src', picture('Hello@120'));
    expect(screen.getByRole('button', { name: 'Play the live preview' })).toBeVisible();
  });

  it("when the strip's frames are spread unevenly (an audio scene's loudest moments), each is shown for the stretch of the clip it stands for", async () => {
    // Frame 1 stands for frames 1-5 (a sixth of a second), frame 10 for frames 6-65 (two seconds).
    livePreview.mockImplementation(async (request) => ({ strip: { clipFrames: 120, frames: [1, 10, 120].map((frame) => ({ frame, image: picture(`${request.customText}@${frame}`) })) } }));
    openCustomize();
    await userEvent.click(screen.getByRole('radio', { name: 'Animation' }));
    await typeText('Beat');
    await waitFor(() => expect(stripPicture()).toHaveAttribute('src', picture('Beat@10')), { timeout: 1000 });
    await new Promise((done) => setTimeout(done, 1000));
    expect(stripPicture()).toHaveAttribute('src', picture('Beat@10'));
    await waitFor(() => expect(stripPicture()).toHaveAttribute('src', picture('Beat@120')), { timeout: 2000 });
  });

  it('when the strip of an older change answers after the newer one, it is dropped and the newer strip stays', async () => {
    const first = later();
    const second = later();
    livePreview.mockReturnValueOnce(first.promise).mockReturnValueOnce(second.promise);
    openCustomize();
    await userEvent.click(screen.getByRole('radio', { name: 'Animation' }));
    await typeText('Hello');
    await waitFor(() => expect(livePreview).toHaveBeenCalledTimes(1));
    await typeText(' World');
    await waitFor(() => expect(livePreview).toHaveBeenCalledTimes(2));
    expect(livePreview.mock.calls[0][2]?.aborted).toBe(true);

    second.send(stripAnswer('Hello World'));
    const scrubber = await screen.findByRole('slider', { name: 'Live preview frame' });
    fireEvent.change(scrubber, { target: { value: '2' } });
    expect(stripPicture()).toHaveAttribute('src', picture('Hello World@80'));
    first.send(stripAnswer('Hello'));
    await new Promise((done) => setTimeout(done, LIVE_PREVIEW_DEBOUNCE_MS));
    expect(stripPicture()).toHaveAttribute('src', picture('Hello World@80'));
    expect(scrubber).toHaveAttribute('aria-valuetext', 'frame 80 of 120');
  });

  it('when the settings go back to ones already previewed, their picture comes back without asking again', async () => {
    livePreview.mockImplementation(async (request) => answer(request.customText ?? ''));
    openCustomize();
    await typeText('Hello');
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('Hello')));
    await typeText('!');
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('Hello!')));
    await userEvent.keyboard('{Backspace}');
    await waitFor(() => expect(livePicture()).toHaveAttribute('src', picture('Hello')));
    expect(livePreview).toHaveBeenCalledTimes(2);
  });

  it('when the preview is unavailable (503), the example stays and a quiet note says so', async () => {
    livePreview.mockRejectedValue(new ApiError('unavailable', 'Previews are unavailable right now. Your settings are kept; please try again in a moment.', { retryAfterSeconds: 2 }));
    openCustomize();
    await typeText('Hello');
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(LIVE_PREVIEW_UNAVAILABLE));
    expect(livePicture()).toBeNull();
    expect(screen.getByLabelText('Text Animation preview animation')).toBeInTheDocument();
    expect(screen.queryByText('Live preview')).not.toBeInTheDocument();
    // A failure waits for the next change: it is not retried behind the customer's back.
    expect(livePreview).toHaveBeenCalledTimes(1);
  });
});

describe('useLivePreview', () => {
  function wrapper({ children }: { children: ReactNode }) {
    return (
      <SessionTestProvider value={{ user: VERIFIED_USER }}>
        <QueryClientProvider client={testQueryClient()}>{children}</QueryClientProvider>
      </SessionTestProvider>
    );
  }

  it("when the server cannot use the customer's file (400 about the upload), the note is the server's message", async () => {
    const message = 'Your image could not be read. Please upload a PNG or JPEG.';
    livePreview.mockRejectedValue(new ApiError('invalid_request', message, { field: 'uploadKey' }));
    const request = { sceneId: 6, resolutionX: 1080, resolutionY: 1920, options: '', uploadKey: 'uploads/u1/poster.png' };
    const { result } = renderHook(() => useLivePreview(6, request), { wrapper });
    await waitFor(() => expect(result.current).toEqual({ image: null, strip: null, status: 'failed', error: message }));
  });

  it("when a newer preview of the customer's (another window's) replaced this one (409), the note is the server's message, not asked again", async () => {
    const message = 'A newer preview of your settings replaced this one.';
    livePreview.mockRejectedValue(new ApiError('conflict', message));
    const { result } = renderHook(() => useLivePreview(1, { sceneId: 1, resolutionX: 1920, resolutionY: 1080, options: '', customText: 'Hi' }), { wrapper });
    await waitFor(() => expect(result.current).toEqual({ image: null, strip: null, status: 'failed', error: message }));
    expect(livePreview).toHaveBeenCalledTimes(1);
  });

  it('when the settings cannot be previewed yet (no text, no stored upload), nothing is asked', async () => {
    const { result } = renderHook(() => useLivePreview(1, null), { wrapper });
    await new Promise((done) => setTimeout(done, LIVE_PREVIEW_DEBOUNCE_MS * 2));
    expect(result.current).toEqual({ image: null, strip: null, status: 'idle', error: null });
    expect(livePreview).not.toHaveBeenCalled();
  });
});
