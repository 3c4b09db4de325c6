/**
 * Live previews through the API (POST /api/previews, /api/visitor-previews, /api/v1/previews),
 * rendered by the local stack's warm scene servers with real Blender: a picture and nothing
 * else (no job, no ledger entry, no history row, no e-mail), kept for identical settings of the
 * same asker at the size rendered, with no hint that it was; rate-limited; one preview of a
 * customer at a time (a newer one replaces the one waiting); a customer's own upload only, read
 * as inspected; a previewer that fails or hangs is a 503 with Retry-After within the deadline.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { bindLocalPreviewer, downloadUpload, s3Client } from '#composition/server';
import { livePreview, PREVIEW_ANSWER_MS } from '#core/previews/previews';
import { ConflictError, ServiceUnavailableError } from '#core/errors';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { getItem } from '#core/db/items';
import { LOCAL_VISITOR_RENDERS_AT_ONCE as VISITOR_RENDERS_AT_ONCE } from '#core/previews/preview-flights';
import { getConfig } from '#core/config';
import { keys } from '#core/db/keys';
import { headInput, presignInputRead } from '#core/storage/storage';
import { VISITOR_PREVIEWS_PER_MINUTE } from '#shared/rate-limit';
import { api, grantCredits, postToStorage, until, verifiedUser } from './helpers';
import { writeSampleImage } from '#render/sample-inputs';

const textPreview = (customText: string) => ({ sceneId: 1, resolutionX: 1920, resolutionY: 1080, customText, options: 'backgroundStyle:hot;textColor:#33aaff' });
const jpegOf = (image: string) => Buffer.from(image.replace(/^data:image\/jpeg;base64,/, ''), 'base64');
/** Mails to this address in the stack's mail folder (other test files send theirs meanwhile). */
const mailsTo = (email: string) => {
  const dir = join(inject('dataDir'), 'mail');
  return readdirSync(dir).filter((name) => readFileSync(join(dir, name), 'utf8').includes(email)).length;
};

describe('live previews', () => {
  it("when a customer previews their text, they get a small marked JPEG of it, and no job, ledger entry, history row or e-mail is made", async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const mailsBefore = mailsTo(user.email);
    // The page's warm-up, as when it opens: the scene's server starts (a cold start takes longer than a preview may).
    expect((await api('/api/previews', { token: user.token, body: { sceneId: 1, warmUp: true } })).status).toBe(202);
    // Until it is warm, a preview may be a 503 (the page keeps its picture and asks again on the next change).
    const first = await until('a warm preview', async () => {
      const answer = await api('/api/previews', { token: user.token, body: textPreview(`Preview ${user.userId.slice(0, 6)}`) });
      if (answer.status === 503) return undefined;
      return answer;
    }, 60_000);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(Object.keys(first.body)).toEqual(['image']);
    expect(first.body.image).toMatch(/^data:image\/jpeg;base64,/);
    const jpeg = jpegOf(first.body.image);
    expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
    // 320 x 180: the frame's shape, its longer side the live preview's (a JPEG's SOF0 holds height then width).
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect([jpeg.readUInt16BE(sof + 5), jpeg.readUInt16BE(sof + 7)]).toEqual([180, 320]);

    // The same settings again: the kept picture, and nothing in the answer says so.
    const again = await api('/api/previews', { token: user.token, body: textPreview(`Preview ${user.userId.slice(0, 6)}`) });
    expect(again.body).toEqual({ image: first.body.image });

    expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
    const me = (await api('/api/me', { token: user.token })).body;
    expect(me.credits).toBe(10);
    const history = (await api('/api/credits/history', { token: user.token })).body;
    expect(JSON.stringify(history)).not.toMatch(/preview/i);
    expect(mailsTo(user.email)).toBe(mailsBefore);
  });

  it("when a customer previews their animation as a strip, the answer names the clip's frame numbers, first and last among them, with a marked JPEG each, and no job or charge is made", async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    expect((await api('/api/previews', { token: user.token, body: { sceneId: 1, warmUp: true } })).status).toBe(202);
    // A strip not made within the API's wait is a 503 (the page asks again on the next change): asked again here.
    const stripOf = (body: object) =>
      until('a strip', async () => {
        const answer = await api('/api/previews', { token: user.token, body });
        return answer.status === 503 ? undefined : answer;
      }, 60_000);
    const strip = await stripOf({ ...textPreview(`Strip ${user.userId.slice(0, 6)}`), strip: {} });
    expect(strip.status, JSON.stringify(strip.body)).toBe(200);
    expect(Object.keys(strip.body)).toEqual(['strip']);
    // Text Animation's clip is 120 frames (its paid animation's): eight of them, spread over it.
    expect(strip.body.strip.clipFrames).toBe(120);
    const frames = strip.body.strip.frames as { frame: number; image: string }[];
    expect(frames.map(({ frame }) => frame)).toEqual([1, 18, 35, 52, 69, 86, 103, 120]);
    const jpegs = frames.map(({ image }) => jpegOf(image));
    for (const jpeg of jpegs) {
      expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
      const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
      expect([jpeg.readUInt16BE(sof + 5), jpeg.readUInt16BE(sof + 7)]).toEqual([180, 320]);
    }
    // The text reveals over the clip: the first frame is not the last.
    expect(jpegs[0].equals(jpegs[7])).toBe(false);

    // Fewer frames when asked; a scene with no animation refuses a strip, naming the field.
    const four = await stripOf({ ...textPreview(`Four ${user.userId.slice(0, 6)}`), strip: { frames: 4 } });
    expect(four.status, JSON.stringify(four.body)).toBe(200);
    expect(four.body.strip.frames.map(({ frame }: { frame: number }) => frame)).toEqual([1, 41, 80, 120]);
    const still = await api('/api/previews', { token: user.token, body: { sceneId: 4, resolutionX: 1920, resolutionY: 1080, options: '', strip: {} } });
    expect(still).toMatchObject({ status: 400, body: { field: 'strip' } });

    expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(10);
    expect(JSON.stringify((await api('/api/credits/history', { token: user.token })).body)).not.toMatch(/preview|strip/i);
  });

  it('when a page opens, its warm-up is accepted without a picture; a request the job schema refuses is a 400 naming the field', async () => {
    const user = await verifiedUser();
    expect(await api('/api/previews', { token: user.token, body: { sceneId: 1, warmUp: true } })).toMatchObject({ status: 202, body: { warm: true } });
    const refused = await api('/api/previews', { token: user.token, body: { ...textPreview('x'), options: 'textColor:not-a-colour' } });
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('options');
    const unknown = await api('/api/previews', { token: user.token, body: { ...textPreview('x'), mode: 'still' } });
    expect(unknown.status).toBe(400);
    // An image scene without an upload: the job's own message.
    const missing = await api('/api/previews', { token: user.token, body: { sceneId: 2, resolutionX: 1920, resolutionY: 1080, options: '' } });
    expect(missing).toMatchObject({ status: 400, body: { field: 'uploadKey' } });
  });

  it("when a customer previews an image scene with another customer's upload, or a visitor sends an upload, it is refused as missing", async () => {
    const [owner, other] = [await verifiedUser(), await verifiedUser()];
    const image = join(inject('dataDir'), `preview-${owner.userId}.png`);
    await writeSampleImage(image, 160, 100);
    const ticket = await api('/api/uploads', { token: owner.token, body: { sceneId: 2, fileName: 'photo.png', contentType: 'image/png', size: statSync(image).size } });
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    const stored = await postToStorage(ticket.body, readFileSync(image), 'photo.png');
    expect(stored.status).toBeLessThan(300);
    const body = { sceneId: 2, resolutionX: 1280, resolutionY: 720, options: '', uploadKey: ticket.body.key };

    // The image scene's server may be cold (its warm-up is sent as the page would): a 503 meanwhile is asked again.
    expect((await api('/api/previews', { token: owner.token, body: { sceneId: 2, warmUp: true } })).status).toBe(202);
    const own = await until('a warm image preview', async () => {
      const answer = await api('/api/previews', { token: owner.token, body });
      return answer.status === 503 ? undefined : answer;
    }, 60_000);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(jpegOf(own.body.image).subarray(0, 2).toString('hex')).toBe('ffd8');
    for (const refused of [await api('/api/previews', { token: other.token, body }), await api('/api/visitor-previews', { body })]) {
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ field: 'uploadKey', message: 'The uploaded file was not found. Please upload it again.' });
    }
  });

  it('when a visitor asks for more previews than a minute allows, the next is a 429 with Retry-After in the one error shape', async () => {
    // The visitor's window may hold a request of another test already: at most the limit is served, then 429 (a loaded
    // machine may answer a 503 meanwhile, which counts in the window too). The window is the clock's minute: the requests
    // start with at least 10 s of it left, so they all fall in one (a new minute would rightly serve them again).
    const leftOfMinute = 60_000 - (Date.now() % 60_000);
    if (leftOfMinute < 10_000) await new Promise((resolve) => setTimeout(resolve, leftOfMinute + 100));
    const statuses: number[] = [];
    let last;
    do {
      last = await api('/api/visitor-previews', { body: textPreview('Visitor') });
      statuses.push(last.status);
    } while ((last.status === 200 || last.status === 503) && statuses.length <= VISITOR_PREVIEWS_PER_MINUTE);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.length).toBeLessThanOrEqual(VISITOR_PREVIEWS_PER_MINUTE + 1);
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({ code: 'rate_limited' });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("when an API key's owner asks POST /api/v1/previews with variables as an object, the answer is the documented picture", async () => {
    const user = await verifiedUser();
    const key = (await api('/api/api-keys', { token: user.token, body: { name: 'previews' } })).body.secret as string;
    const answer = await api('/api/v1/previews', { token: key, body: { sceneId: 1, resolutionX: 1080, resolutionY: 1080, customText: 'Square', options: { textColor: '#ff0055' } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const jpeg = jpegOf(answer.body.image);
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect([jpeg.readUInt16BE(sof + 5), jpeg.readUInt16BE(sof + 7)]).toEqual([320, 320]);
  });

  it('when the previewer fails or does not answer, the customer gets a 503 with Retry-After within the deadline, and nothing is kept', async () => {
    const user = await verifiedUser();
    const request = { ...textPreview(`Down ${Date.now()}`), options: '' };
    // Kept pictures (the answer no longer tells): the failures add none. The file's tests run one at a time.
    const keptPictures = async () => (await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: 'previews/' }))).KeyCount ?? 0;
    const keptBefore = await keptPictures();
    try {
      // A reach of 1 ms: the hung render's turn does not hold the customer's next preview (the stack's, below).
      bindLocalPreviewer({ render: () => Promise.reject(new Error('Blender is gone')), warm: async () => {}, reachMs: 1 });
      await expect(livePreview({ userId: user.userId }, request)).rejects.toBeInstanceOf(ServiceUnavailableError);
      bindLocalPreviewer({ render: () => new Promise(() => {}), warm: async () => {}, reachMs: 1 });
      const started = Date.now();
      const hung = await livePreview({ userId: user.userId }, request).catch((error: unknown) => error);
      expect(hung).toBeInstanceOf(ServiceUnavailableError);
      expect((hung as ServiceUnavailableError).retryAfterSeconds).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(PREVIEW_ANSWER_MS + 1_000);
    } finally {
      bindLocalPreviewer(undefined);
    }
    expect(await keptPictures()).toBe(keptBefore);
    // The stack's own previewer (another process) renders it (a loaded machine may answer 503 first).
    const served = await until('a preview by the stack', async () => {
      const asked = await api('/api/previews', { token: user.token, body: request });
      return asked.status === 503 ? undefined : asked;
    }, 90_000);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(await keptPictures()).toBe(keptBefore + 1);
  });

  it('when a customer previews a text at 1024 x 1024 after 128 x 128, each is rendered at its own size and neither answer hints at a kept picture', async () => {
    const user = await verifiedUser();
    const square = (side: number) => ({ ...textPreview(`Square ${user.userId.slice(0, 6)}`), resolutionX: side, resolutionY: side });
    expect((await api('/api/previews', { token: user.token, body: { sceneId: 1, warmUp: true } })).status).toBe(202);
    const sizeOf = (image: string) => {
      const jpeg = jpegOf(image);
      const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
      return [jpeg.readUInt16BE(sof + 7), jpeg.readUInt16BE(sof + 5)];
    };
    for (const [side, rendered] of [[128, 128], [1024, 320]]) {
      // A loaded machine may answer 503, or stop a render past its 4 s (the customer's to change): asked again.
      const answer = await until(`a ${side}-px preview`, async () => {
        const asked = await api('/api/previews', { token: user.token, body: square(side) });
        return asked.status === 503 || /took longer than/.test(asked.body.message ?? '') ? undefined : asked;
      }, 90_000);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(Object.keys(answer.body)).toEqual(['image']);
      expect(sizeOf(answer.body.image)).toEqual([rendered, rendered]);
    }
  });

  it('when a customer sends a second and a third preview while their first renders, the third replaces the waiting second, which answers 409 at once', async () => {
    const [user, other] = [await verifiedUser(), await verifiedUser()];
    // A previewer whose renders end when the test says: the customer's turn, kept in the table, is what is under test.
    const rendering: { text?: string; finish: () => void }[] = [];
    const image = Buffer.from('a picture').toString('base64');
    bindLocalPreviewer({
      render: (preview) => new Promise((resolve) => rendering.push({ text: preview.customText, finish: () => resolve({ image, renderMs: 1 }) })),
      warm: async () => {},
      reachMs: 60_000,
    });
    try {
      const ask = (asker: { userId: string }, text: string) => livePreview(asker, { ...textPreview(`${text} ${Date.now()}`), options: '' });
      const first = ask({ userId: user.userId }, 'First');
      await until('the first preview rendering', async () => rendering.length === 1 || undefined, 10_000);
      const second = ask({ userId: user.userId }, 'Second').catch((error: unknown) => error);
      await until('the second preview waiting', async () => (await getItem(keys.previewFlight(`user#${user.userId}`), { consistent: true }))?.waiting ?? undefined, 10_000);
      const third = ask({ userId: user.userId }, 'Third');
      // Answered while the first still renders: the page's own newer request won.
      const replaced = await second;
      expect(replaced).toBeInstanceOf(ConflictError);
      expect(rendering).toHaveLength(1);
      // Another customer is not held by this one's turn.
      const others = ask({ userId: other.userId }, 'Other');
      await until("the other customer's preview rendering", async () => rendering.length === 2 || undefined, 10_000);
      expect(rendering[1].text).toMatch(/^Other /);
      rendering[1].finish();
      await expect(others).resolves.toEqual({ image: `data:image/jpeg;base64,${image}` });
      rendering[0].finish();
      await expect(first).resolves.toEqual({ image: `data:image/jpeg;base64,${image}` });
      await until('the third preview rendering', async () => rendering.length === 3 || undefined, 10_000);
      expect(rendering[2].text).toMatch(/^Third /);
      rendering[2].finish();
      await expect(third).resolves.toEqual({ image: `data:image/jpeg;base64,${image}` });
      expect(rendering.map(({ text }) => text?.split(' ')[0])).toEqual(['First', 'Other', 'Third']);
    } finally {
      bindLocalPreviewer(undefined);
    }
  });

  it("when a waiting preview's caller goes (its connection closed), it leaves its place at once, while the one before it still renders", async () => {
    const user = await verifiedUser();
    const rendering: { finish: () => void }[] = [];
    bindLocalPreviewer({ render: () => new Promise((resolve) => rendering.push({ finish: () => resolve({ image: 'AAAA', renderMs: 1 }) })), warm: async () => {}, reachMs: 60_000 });
    const flight = () => getItem(keys.previewFlight(`user#${user.userId}`), { consistent: true });
    try {
      const first = livePreview({ userId: user.userId }, { ...textPreview(`Stays ${Date.now()}`), options: '' });
      await until('the first preview rendering', async () => rendering.length === 1 || undefined, 10_000);
      const caller = new AbortController();
      const second = livePreview({ userId: user.userId }, { ...textPreview(`Leaves ${Date.now()}`), options: '' }, caller.signal).catch((error: unknown) => error);
      await until('the second preview waiting', async () => (await flight())?.waiting ?? undefined, 10_000);
      caller.abort();
      expect(await second).toBeInstanceOf(ServiceUnavailableError);
      // Its place is given up right after its answer (the answer does not wait for the table).
      await until('the waiting place given up', async () => ((await flight())?.waiting === undefined) || undefined, 10_000);
      expect(rendering).toHaveLength(1);
      rendering[0].finish();
      await expect(first).resolves.toEqual({ image: 'data:image/jpeg;base64,AAAA' });
      expect(rendering).toHaveLength(1);
    } finally {
      bindLocalPreviewer(undefined);
    }
  });

  it('when visitors from as many addresses as their share of the previewer are rendering, the next visitor is told previews are busy, and a signed-in customer still renders', async () => {
    const user = await verifiedUser();
    const rendering: { text?: string; finish: () => void }[] = [];
    bindLocalPreviewer({
      render: (preview) => new Promise((resolve) => rendering.push({ text: preview.customText, finish: () => resolve({ image: 'AAAA', renderMs: 1 }) })),
      warm: async () => {},
      reachMs: 60_000,
    });
    const run = `${Date.now()}`;
    const ask = (asker: { visitor: string } | { userId: string }, text: string) => livePreview(asker, { ...textPreview(`${text} ${run}`), options: '' });
    try {
      const visitors = Array.from({ length: VISITOR_RENDERS_AT_ONCE }, (_, index) => ask({ visitor: `share-${run}-${index}` }, `Visitor${index}`));
      await until('every visitor place rendering', async () => rendering.length === VISITOR_RENDERS_AT_ONCE || undefined, 20_000);
      const turnedAway = await ask({ visitor: `share-${run}-last` }, 'Last').catch((error: unknown) => error);
      expect(turnedAway).toBeInstanceOf(ServiceUnavailableError);
      expect((turnedAway as ServiceUnavailableError).retryAfterSeconds).toBeGreaterThan(0);
      expect((turnedAway as ServiceUnavailableError).message).toMatch(/busy/);
      // Turned away before the previewer, not timed out in it.
      expect(rendering).toHaveLength(VISITOR_RENDERS_AT_ONCE);
      const customer = ask({ userId: user.userId }, 'Customer');
      await until("the customer's preview rendering", async () => rendering.length === VISITOR_RENDERS_AT_ONCE + 1 || undefined, 20_000);
      expect(rendering.at(-1)!.text).toMatch(/^Customer /);
      for (const { finish } of rendering) finish();
      await Promise.all([...visitors, customer]);
      // Their places given back, the visitor turned away renders now.
      const again = ask({ visitor: `share-${run}-last` }, 'Last');
      await until('the last visitor rendering', async () => rendering.length === VISITOR_RENDERS_AT_ONCE + 2 || undefined, 20_000);
      rendering.at(-1)!.finish();
      await expect(again).resolves.toEqual({ image: 'data:image/jpeg;base64,AAAA' });
    } finally {
      bindLocalPreviewer(undefined);
    }
  });

  it("when a customer previews one upload again with other settings, it is not read or inspected again; posted again, its new content is, and each preview is given the content inspected", async () => {
    const owner = await verifiedUser();
    const image = join(inject('dataDir'), `inspected-${owner.userId}.png`);
    await writeSampleImage(image, 160, 100);
    const ticket = (await api('/api/uploads', { token: owner.token, body: { sceneId: 2, fileName: 'photo.png', contentType: 'image/png', size: statSync(image).size } })).body;
    expect((await postToStorage(ticket, readFileSync(image), 'photo.png')).status).toBeLessThan(300);
    const given: { etag?: string; url?: string }[] = [];
    bindLocalPreviewer({ render: async (preview) => (given.push({ ...preview.input }), { image: 'AAAA', renderMs: 1 }), warm: async () => {}, reachMs: 1 });
    // The upload's reads (GetObject of its key) while each preview is asked.
    const reads: (string | undefined)[] = [];
    const name = `count-upload-reads-${Date.now()}`;
    s3Client().middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { Key?: string; IfMatch?: string };
        if (context.commandName === 'GetObjectCommand' && input.Key === ticket.key) reads.push(input.IfMatch);
        return next(args);
      },
      // Past signing (the deserialize step): a presigned link runs the earlier steps too, and is not a read.
      { step: 'deserialize', name },
    );
    try {
      const preview = (side: number) => livePreview({ userId: owner.userId }, { sceneId: 2, resolutionX: side, resolutionY: side, options: '', uploadKey: ticket.key });
      const first = (await headInput(ticket.key))!.etag;
      await preview(512);
      expect(reads).toEqual([first]);
      await preview(256);
      expect(reads).toEqual([first]);
      await writeSampleImage(image, 200, 120);
      expect((await postToStorage(ticket, readFileSync(image), 'photo.png')).status).toBeLessThan(300);
      const second = (await headInput(ticket.key))!.etag;
      await preview(384);
      expect(reads).toEqual([first, second]);
      expect(given.map(({ etag }) => etag)).toEqual([first, first, second]);
      // Storage itself holds the link to that content: If-Match is one of its signed headers.
      for (const { url } of given) expect(new URL(url!).searchParams.get('X-Amz-SignedHeaders')).toMatch(/(^|;)if-match(;|$)/);
    } finally {
      s3Client().middlewareStack.remove(name);
      bindLocalPreviewer(undefined);
    }
  });

  it("when an upload's form is posted again after it was inspected, the preview's link pinned to the inspected content refuses the new one", async () => {
    const owner = await verifiedUser();
    const image = join(inject('dataDir'), `pinned-${owner.userId}.png`);
    await writeSampleImage(image, 160, 100);
    const ticket = (await api('/api/uploads', { token: owner.token, body: { sceneId: 2, fileName: 'photo.png', contentType: 'image/png', size: statSync(image).size } })).body;
    expect((await postToStorage(ticket, readFileSync(image), 'photo.png')).status).toBeLessThan(300);
    const inspected = (await headInput(ticket.key))!.etag;
    const url = await presignInputRead(ticket.key, { etag: inspected, seconds: 60 });
    const dir = mkdtempSync(join(inject('dataDir'), 'pinned-'));
    await downloadUpload({ key: ticket.key, url, etag: inspected }, join(dir, 'a.png'), 10_000_000, 5_000);
    expect(readFileSync(join(dir, 'a.png'))).toEqual(readFileSync(image));
    // The same form, another file.
    await writeSampleImage(image, 200, 120);
    expect((await postToStorage(ticket, readFileSync(image), 'photo.png')).status).toBeLessThan(300);
    expect((await headInput(ticket.key))!.etag).not.toBe(inspected);
    await expect(downloadUpload({ key: ticket.key, url, etag: inspected }, join(dir, 'b.png'), 10_000_000, 5_000)).rejects.toThrow(/no longer the content inspected/);
    rmSync(dir, { recursive: true, force: true });
  });
});
