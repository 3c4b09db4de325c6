import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Link, Route } from 'react-router-dom';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, uploadToStorage } from '../lib/api';
import { VERIFIED_USER, profileWith, renderWithApp } from '../test/render';
import CustomizePage from './CustomizePage';

vi.mock('../lib/api', () => ({
  ApiError: Error,
  api: {
    jobs: vi.fn(async () => ({ jobs: [] })),
    favorites: vi.fn(async () => ({ favorites: [] })),
    jobQueue: vi.fn(async () => ({ queue: null })),
    createUpload: vi.fn(async () => ({ url: 'http://127.0.0.1:9/uploads', fields: {}, key: 'uploads/u1/k/poster.png', maxBytes: 1000, fileName: 'poster.png' })),
    createJob: vi.fn(async () => ({ job: { jobId: 'job-1' } })),
    livePreview: vi.fn(async () => ({ image: 'data:image/jpeg;base64,', cached: false })),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(async () => {}),
}));
// jsdom decodes no image: the browser's measurement of the poster, as a 2:3 picture.
vi.mock('./media', () => ({ measureImage: vi.fn(async () => ({ width: 1000, height: 1500 })), measureDuration: vi.fn() }));

const realCreate = URL.createObjectURL;
const realRevoke = URL.revokeObjectURL;
beforeAll(() => {
  URL.createObjectURL = vi.fn(() => 'blob:poster');
  URL.revokeObjectURL = vi.fn();
});
afterAll(() => {
  URL.createObjectURL = realCreate;
  URL.revokeObjectURL = realRevoke;
});

const session = { user: VERIFIED_USER, profile: profileWith(50), emailVerified: true };
const jobHistory = <Route path="/job-history" element={<Link to="/customize/6">New Render with Same Scene</Link>} />;

async function startFreeTest() {
  await userEvent.click(screen.getByRole('checkbox', { name: /Test render \(free\)/ }));
  await userEvent.click(screen.getByRole('button', { name: 'Start Free Test Render' }));
  await userEvent.click(within(screen.getByRole('dialog', { name: 'Confirm Render Settings' })).getByRole('button', { name: 'Start Free Test Render' }));
  await screen.findByRole('link', { name: 'New Render with Same Scene' });
}

describe('one upload for the free test and the paid render', () => {
  it('when a customer comes back to the scene after a free test, their upload is still there and the paid render sends it without uploading again', async () => {
    renderWithApp(<CustomizePage />, { route: '/customize/6', path: '/customize/:sceneId', session, extraRoutes: jobHistory });
    await userEvent.upload(screen.getByLabelText('Upload your image'), new File(['png'], 'poster.png', { type: 'image/png' }));
    expect(await screen.findByText('Uploaded ✓')).toBeInTheDocument();
    await startFreeTest();
    expect(api.createJob).toHaveBeenLastCalledWith(expect.objectContaining({ isTest: true, uploadKey: 'uploads/u1/k/poster.png' }), expect.any(String));

    await userEvent.click(screen.getByRole('link', { name: 'New Render with Same Scene' }));
    expect(await screen.findByText('Uploaded ✓')).toBeInTheDocument();
    expect(screen.queryByText(/Please upload/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('checkbox', { name: /Test render \(free\)/ }));
    await userEvent.click(screen.getByRole('button', { name: /^Render for/ }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Confirm Render Settings' })).getByRole('button', { name: 'Continue to Payment' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Payment for Render' })).getByRole('button', { name: /Credits & Render/ }));
    await screen.findByRole('link', { name: 'New Render with Same Scene' });
    expect(api.createJob).toHaveBeenLastCalledWith(expect.objectContaining({ isTest: false, uploadKey: 'uploads/u1/k/poster.png' }), expect.any(String));
    expect(api.createUpload).toHaveBeenCalledTimes(1);
    expect(uploadToStorage).toHaveBeenCalledTimes(1);

    // The paid render deletes the upload once done: the page does not offer it again.
    await userEvent.click(screen.getByRole('link', { name: 'New Render with Same Scene' }));
    expect(await screen.findByLabelText('Upload your image')).toBeInTheDocument();
    expect(screen.queryByText('Uploaded ✓')).not.toBeInTheDocument();
  });
});
