import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  alignment,
  changePasswordForm,
  createJobRequest,
  creditPurchaseRequest,
  customCreditAmount,
  loginForm,
  pageView,
  quoteRequest,
  renderSettings,
  reportForm,
  sessionRecord,
  signupForm,
  uploadRequest,
} from '#shared/schemas';

/** The messages of a failed parse, in order ([] when it passed). */
function errors(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe('loginForm', () => {
  it('when either field is empty, it asks for both', () => {
    expect(errors(loginForm, { email: '', password: 'x' })).toEqual(['Please enter both email and password']);
    expect(errors(loginForm, { email: 'a@b.co', password: '' })).toEqual(['Please enter both email and password']);
    expect(errors(loginForm, { email: '   ', password: 'x' })).toEqual(['Please enter both email and password']);
  });

  it('when valid, it trims and lower-cases the email', () => {
    expect(loginForm.parse({ email: '  Ann@Example.COM ', password: ' p ' })).toEqual({ email: 'ann@example.com', password: ' p ' });
  });

  it('when the email is malformed or a key is unknown, it is refused', () => {
    expect(errors(loginForm, { email: 'nope', password: 'x' })).toEqual(['Invalid email address']);
    expect(loginForm.safeParse({ email: 'a@b.co', password: 'x', admin: true }).success).toBe(false);
  });
});

describe('signupForm', () => {
  const form = (password: string, confirmPassword = password) => ({ email: 'a@b.co', password, confirmPassword });

  it('when the passwords differ, it says so first', () => {
    expect(errors(signupForm, form('short', 'other'))).toEqual(['Passwords do not match']);
  });

  it('when the password has 7 characters, it is too short; at 8 the strength rule takes over', () => {
    expect(errors(signupForm, form('Abcde1!'))).toEqual(['Password must be at least 8 characters']);
    expect(errors(signupForm, form('abcdefgh'))).toEqual(['Please use a stronger password with a mix of characters']); // score 2
    expect(errors(signupForm, form('abcdefg1'))).toEqual([]); // score 3
  });

  it('when the confirmation mismatches, the issue sits on confirmPassword', () => {
    const result = signupForm.safeParse(form('Abcdefg1!', 'x'));
    expect(result.success ? [] : result.error.issues[0].path).toEqual(['confirmPassword']);
  });
});

describe('changePasswordForm', () => {
  const form = (newPassword: string, confirmNewPassword = newPassword) => ({ currentPassword: 'old', newPassword, confirmNewPassword });

  it('when the new passwords differ, it says New passwords do not match', () => {
    expect(errors(changePasswordForm, form('Abcdefg1', 'Abcdefg2'))).toEqual(['New passwords do not match']);
  });

  it('when the score is under 3, it is too weak; at 3 it passes', () => {
    expect(errors(changePasswordForm, form('abcdefgh'))).toEqual(['Password is too weak. Please choose a stronger password.']);
    expect(errors(changePasswordForm, form('abcdefg1'))).toEqual([]);
  });

  it('when the new password is under 8 characters, it is refused even with score 3', () => {
    expect(errors(changePasswordForm, form('Ab1'))).toEqual(['Password must be at least 8 characters']);
  });

  it('when the current password is empty, it asks for it', () => {
    expect(errors(changePasswordForm, { currentPassword: '', newPassword: 'abcdefg1', confirmNewPassword: 'abcdefg1' })).toEqual([
      'Please enter your current password.',
    ]);
  });
});

describe('reportForm', () => {
  it('when the description is blank, it asks for one', () => {
    expect(errors(reportForm, { description: '  \n ' })).toEqual(['Please provide a description of the issue.']);
  });

  it('when the description is 5000 characters it passes; 5001 is too long', () => {
    expect(errors(reportForm, { description: 'x'.repeat(5000) })).toEqual([]);
    expect(errors(reportForm, { description: 'x'.repeat(5001) })).toEqual(['Description must be at most 5000 characters.']);
  });
});

describe('credits', () => {
  it('when the custom amount is digits only, it parses to a positive integer up to 10000', () => {
    expect(customCreditAmount.parse('25')).toBe(25);
    expect(customCreditAmount.parse(' 007 ')).toBe(7);
    expect(customCreditAmount.parse('10000')).toBe(10000);
  });

  it('when the custom amount has other characters, is zero or too large, it is refused', () => {
    for (const text of ['', '1.5', '-3', '1e3', 'ten', '2 0']) {
      expect(errors(customCreditAmount, text)).toEqual(['Please enter a whole number of credits.']);
    }
    expect(errors(customCreditAmount, '0')).toEqual(['Please enter at least 1 credit.']);
    expect(errors(customCreditAmount, '10001')).toEqual(['You can buy at most 10000 credits at once.']);
  });

  it('when a purchase is requested, packages and custom whole amounts pass', () => {
    for (const credits of [10, 20, 50, 100, 37]) expect(creditPurchaseRequest.safeParse({ credits }).success).toBe(true);
    for (const credits of [0, -10, 2.5, 10001, '10']) expect(creditPurchaseRequest.safeParse({ credits }).success).toBe(false);
    expect(creditPurchaseRequest.safeParse({ credits: 10, bonus: 5 }).success).toBe(false);
  });
});

describe('quoteRequest', () => {
  const quote = { sceneId: 1, mode: 'still', resolutionX: 1920, resolutionY: 1080 };

  it('when the resolution sits on 128 or 4096 it passes; one pixel outside it is refused', () => {
    expect(errors(quoteRequest, { ...quote, resolutionX: 128, resolutionY: 4096 })).toEqual([]);
    expect(errors(quoteRequest, { ...quote, resolutionX: 127 })).toEqual(['Resolution must be a whole number between 128 and 4096.']);
    expect(errors(quoteRequest, { ...quote, resolutionY: 4097 })).toEqual(['Resolution must be a whole number between 128 and 4096.']);
    expect(errors(quoteRequest, { ...quote, resolutionY: 1080.5 })).toEqual(['Resolution must be a whole number between 128 and 4096.']);
  });

  it('when the scene does not exist, it says Scene not found', () => {
    expect(errors(quoteRequest, { ...quote, sceneId: 8 })).toEqual(['Scene not found']);
    expect(errors(quoteRequest, { ...quote, sceneId: 0 })).toEqual(['Scene not found']);
  });

  it('when the mode is not one the scene supports, it is refused', () => {
    expect(errors(quoteRequest, { ...quote, sceneId: 3 })).toEqual(['This scene does not support that render mode.']);
    expect(errors(quoteRequest, { ...quote, sceneId: 3, mode: 'animation', mediaDurationSeconds: 12.5 })).toEqual([]);
  });

  it('when the media lasts more than 10 minutes or a key is unknown, it is refused', () => {
    expect(errors(quoteRequest, { ...quote, sceneId: 3, mode: 'animation', mediaDurationSeconds: 600 })).toEqual([]);
    expect(errors(quoteRequest, { ...quote, sceneId: 3, mode: 'animation', mediaDurationSeconds: 600.1 })).toEqual([
      'Media files can be at most 10 minutes long.',
    ]);
    expect(quoteRequest.safeParse({ ...quote, price: 0 }).success).toBe(false);
    expect(renderSettings.safeParse({ mode: 'still', resolutionX: 1920, resolutionY: 1080 }).success).toBe(true);
  });
});

describe('createJobRequest', () => {
  const imageJob = {
    sceneId: 2,
    mode: 'still',
    resolutionX: 1920,
    resolutionY: 1080,
    options: '',
    uploadKey: 'uploads/user-1/abc/photo.png',
    isTest: false,
    paymentMethod: 'credits',
  };

  it('when a complete job is sent, it passes', () => {
    expect(errors(createJobRequest, imageJob)).toEqual([]);
    expect(
      errors(createJobRequest, {
        ...imageJob,
        sceneId: 6,
        fileWidth: 1200,
        fileHeight: 1800,
        alignment: { scale: 100, x: 0, y: -10, opacity: 50, blendMode: 'multiply', aspectRatioMatch: true },
        paymentMethod: 'card',
      }),
    ).toEqual([]);
  });

  it('when the scene needs a file and none was uploaded, it asks for the upload first', () => {
    const { uploadKey: _omitted, ...noUpload } = imageJob;
    expect(errors(createJobRequest, noUpload)).toEqual(['Please upload an image before rendering.']);
    expect(errors(createJobRequest, { ...noUpload, sceneId: 4 })).toEqual(['Please upload a 3D model before rendering.']);
  });

  it('when a text scene gets a file, it is refused', () => {
    expect(errors(createJobRequest, { ...imageJob, sceneId: 1 })).toEqual(['This scene does not take an uploaded file.']);
  });

  it('when a sound animation has no measured duration, it is refused', () => {
    expect(errors(createJobRequest, { ...imageJob, sceneId: 3, mode: 'animation' })).toEqual([
      'Please upload a media file so its duration can be measured.',
    ]);
    expect(errors(createJobRequest, { ...imageJob, sceneId: 3, mode: 'animation', mediaDurationSeconds: 30 })).toEqual([]);
  });

  it('when the custom text is 200 characters it passes; 201 or control characters are refused', () => {
    const textJob = { ...imageJob, sceneId: 1, uploadKey: undefined };
    expect(errors(createJobRequest, { ...textJob, customText: 'x'.repeat(200) })).toEqual([]);
    expect(errors(createJobRequest, { ...textJob, customText: 'Hello\nWorld' })).toEqual([]);
    expect(errors(createJobRequest, { ...textJob, customText: 'x'.repeat(201) })).toEqual(['Custom text must be at most 200 characters.']);
    expect(errors(createJobRequest, { ...textJob, customText: 'bell\u0007' })).toEqual(['Custom text contains unsupported characters.']);
  });

  it('when options do not fit the scene or are too long, they are refused', () => {
    const textJob = { ...imageJob, sceneId: 1, uploadKey: undefined };
    expect(errors(createJobRequest, { ...textJob, options: 'backgroundStyle:hot;textColor:#ff0000' })).toEqual([]);
    expect(errors(createJobRequest, { ...textJob, options: 'backgroundStyle:warm' })).toEqual([
      "Invalid value for option 'backgroundStyle'.",
    ]);
    expect(errors(createJobRequest, { ...textJob, options: 'x'.repeat(1001) })[0]).toBe('Options must be at most 1000 characters.');
  });

  it('when alignment leaves its bounds, it is refused', () => {
    const align = { scale: 50, x: 0, y: 0, opacity: 0, blendMode: 'normal' };
    expect(alignment.safeParse(align).success).toBe(true);
    expect(alignment.safeParse({ ...align, scale: 150, opacity: 100 }).success).toBe(true);
    expect(alignment.safeParse({ ...align, scale: 49.9 }).success).toBe(false);
    expect(alignment.safeParse({ ...align, scale: 150.1 }).success).toBe(false);
    expect(alignment.safeParse({ ...align, opacity: 101 }).success).toBe(false);
    expect(alignment.safeParse({ ...align, blendMode: 'screen' }).success).toBe(false);
  });

  it('when the body carries a price, an unknown payment method or no isTest flag, it is refused', () => {
    expect(createJobRequest.safeParse({ ...imageJob, price: 0.01 }).success).toBe(false);
    expect(createJobRequest.safeParse({ ...imageJob, paymentMethod: 'free' }).success).toBe(false);
    const { isTest: _omitted, ...noFlag } = imageJob;
    expect(createJobRequest.safeParse(noFlag).success).toBe(false);
  });
});

describe('uploadRequest', () => {
  const upload = { sceneId: 2, fileName: 'photo.png', contentType: 'image/png', size: 1000 };

  it('when the file fits the scene, it passes', () => {
    expect(errors(uploadRequest, upload)).toEqual([]);
    expect(errors(uploadRequest, { ...upload, sceneId: 7, fileName: 'drop.wav', contentType: 'audio/wav' })).toEqual([]);
  });

  it('when the file is the wrong kind, too large or for a text scene, it is refused', () => {
    expect(errors(uploadRequest, { ...upload, sceneId: 4 })[0]).toMatch(/3D model/);
    expect(errors(uploadRequest, { ...upload, size: 25 * 1024 * 1024 + 1 })).toEqual(['This file is too large. The maximum size is 25 MB.']);
    expect(errors(uploadRequest, { ...upload, sceneId: 1 })).toEqual(['This scene does not take an uploaded file.']);
    expect(uploadRequest.safeParse({ ...upload, size: 0 }).success).toBe(false);
  });
});

describe('sessionRecord', () => {
  const record = {
    session_id: 'k3j4-h5_x',
    session_start: 1_735_725_600_000,
    is_new_visitor: true,
    page_views: 3,
    scenes_viewed: 2,
    unique_scenes: [1, 3],
    has_interacted: true,
    events: [
      { event_type: 'render_start', scene_id: 3, timestamp: 1_735_725_700_000 },
      { event_type: 'auth_event', action: 'signup', method: 'google' },
      { event_type: 'session_end', total_duration_ms: 45_000 },
    ],
    session_ended: true,
    user_agent_hash: 'a'.repeat(64),
    screen_resolution: '1920x1080',
    timezone: 'Europe/Paris',
  };

  it('when a well-formed session is sent, it passes', () => {
    expect(errors(sessionRecord, record)).toEqual([]);
    expect(errors(sessionRecord, { ...record, user_agent_hash: '' })).toEqual([]);
  });

  it('when events reach 200 they pass; 201 are refused', () => {
    const events = (n: number) => Array.from({ length: n }, () => ({ event_type: 'session_end', total_duration_ms: 1 }));
    expect(sessionRecord.safeParse({ ...record, events: events(200) }).success).toBe(true);
    expect(sessionRecord.safeParse({ ...record, events: events(201) }).success).toBe(false);
  });

  it('when unique scenes reach 50 they pass; 51 are refused', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    expect(sessionRecord.safeParse({ ...record, unique_scenes: ids(50) }).success).toBe(true);
    expect(sessionRecord.safeParse({ ...record, unique_scenes: ids(51) }).success).toBe(false);
  });

  it('when the hash is not lower-case hex or over 128 characters, it is refused', () => {
    expect(sessionRecord.safeParse({ ...record, user_agent_hash: 'f'.repeat(128) }).success).toBe(true);
    expect(sessionRecord.safeParse({ ...record, user_agent_hash: 'f'.repeat(129) }).success).toBe(false);
    expect(sessionRecord.safeParse({ ...record, user_agent_hash: 'Mozilla/5.0' }).success).toBe(false);
  });

  it('when an event is unknown or carries extra keys, it is refused', () => {
    expect(sessionRecord.safeParse({ ...record, events: [{ event_type: 'signup' }] }).success).toBe(false);
    expect(sessionRecord.safeParse({ ...record, events: [{ event_type: 'session_end', total_duration_ms: 1, email: 'a@b.co' }] }).success).toBe(false);
    expect(sessionRecord.safeParse({ ...record, created_at: '2025-01-01T00:00:00Z' }).success).toBe(false);
  });
});

describe('pageView', () => {
  it('when a known page is reported with its path and query, it passes; otherwise not', () => {
    expect(pageView.safeParse({ page: 'scene-customize', path: '/customize/3', query: '?mode=still' }).success).toBe(true);
    expect(pageView.safeParse({ page: 'checkout', path: '/checkout', query: '' }).success).toBe(false);
    expect(pageView.safeParse({ page: 'home', path: 'https://evil.example', query: '' }).success).toBe(false);
  });
});
