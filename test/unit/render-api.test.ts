import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv, parseCsvRecords } from '#shared/csv';
import { isPublicAddress } from '#core/webhooks/webhook-address';
import { nextAttemptAt, RETRY_WINDOW_MS, signatureHeader, verifySignature } from '#core/webhooks/webhooks';
import { zipStream } from '#core/batches/zip-stream';
import { buildOpenApiDocument } from '#shared/openapi';
import { renderRequest, rowToRenderSettings, toJobRequest } from '#shared/render-api';
import { createJobRequest } from '#shared/schemas';
import { getScene } from '#shared/catalogue';

describe('the CSV parser', () => {
  it('when fields are quoted, it keeps commas, CRLF line breaks and doubled quotes inside them', () => {
    expect(parseCsvRecords('a,b\r\n"x, y","say ""hi"""\r\n"two\r\nlines",z\r\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['two\r\nlines', 'z'],
    ]);
  });

  it('when lines end with LF or the file has no final line break or starts with a BOM, it reads the same records', () => {
    expect(parseCsvRecords('\ufeffa,b\nc,d')).toEqual([['a', 'b'], ['c', 'd']]);
    expect(parseCsvRecords('a,\n,\n')).toEqual([['a', ''], ['', '']]);
  });

  it('when a row has the wrong number of fields or a quote is left open, it names the problem', () => {
    expect(() => parseCsv('a,b\n1\n')).toThrow(CsvError);
    expect(() => parseCsv('a,b\n1\n')).toThrow('Row 1 has 1 fields; the header has 2.');
    expect(() => parseCsvRecords('"open\n')).toThrow('not closed');
    expect(() => parseCsvRecords('"a"b\n')).toThrow(CsvError);
    expect(() => parseCsv('a,a\n1,2')).toThrow('appears twice');
    expect(() => parseCsv('')).toThrow('empty');
  });

  it('when a row becomes a render, its variables become the options and its text the customText', () => {
    const scene = getScene(1)!;
    const settings = rowToRenderSettings(scene, { customText: 'Hi', backgroundStyle: 'cold', textColor: '#00ff00', resolutionX: '256' }, { mode: 'still', resolutionX: 128, resolutionY: 128 });
    expect(settings).toEqual({ sceneId: 1, mode: 'still', resolutionX: 256, resolutionY: 128, customText: 'Hi', options: 'backgroundStyle:cold;textColor:#00ff00' });
  });
});

describe('the API render request', () => {
  it('when a field is added to the job schema, the API request has it too (built from the same shape)', () => {
    const jobFields = Object.keys(createJobRequest.shape).filter((f) => f !== 'isTest' && f !== 'paymentMethod');
    expect(Object.keys(renderRequest.shape)).toEqual(expect.arrayContaining(jobFields));
  });

  it('when variables come as an object, the job gets them in its own form, paid with credits and never a free test', () => {
    const request = renderRequest.parse({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, options: { textColor: '#ff0000' } });
    const { webhook_url: _unused, ...settings } = request;
    void _unused;
    expect(toJobRequest(settings)).toMatchObject({ options: 'textColor:#ff0000', isTest: false, paymentMethod: 'credits' });
  });

  it('when a variable breaks the scene\'s rule, the job schema refuses it', () => {
    expect(() => toJobRequest({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, options: 'textColor:red' })).toThrow();
  });
});

describe('webhook addresses', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:a00:1', '0:0:0:0:0:ffff:7f00:1', '::7f00:1', '::a00:1', '224.0.0.1', 'not-an-ip'])(
    'when the address is %s, it is refused',
    (address) => expect(isPublicAddress(address)).toBe(false),
  );

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111'])('when the address is public (%s), it is allowed', (address) => expect(isPublicAddress(address)).toBe(true));
});

describe('webhook signatures and retries', () => {
  it('when the body, the secret or the timestamp is changed, the signature no longer verifies', () => {
    const now = Date.now();
    const t = Math.floor(now / 1000);
    const header = signatureHeader('whsec_a', '{"x":1}', t);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_a', header, '{"x":1}', 300, now)).toBe(true);
    expect(verifySignature('whsec_a', header, '{"x":2}', 300, now)).toBe(false);
    expect(verifySignature('whsec_b', header, '{"x":1}', 300, now)).toBe(false);
    expect(verifySignature('whsec_a', header.replace(`t=${t}`, `t=${t + 1}`), '{"x":1}', 300, now)).toBe(false);
    expect(verifySignature('whsec_a', header, '{"x":1}', 300, now + 600_000)).toBe(false);
    expect(verifySignature('whsec_a', 'garbage', '{"x":1}', 300, now)).toBe(false);
  });

  it('when deliveries keep failing, the delays grow and stop once a day has passed since the first', () => {
    const first = new Date('2026-01-01T00:00:00Z');
    let now = first;
    const delays: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt(first, attempt, now);
      if (!next) break;
      delays.push((next.getTime() - now.getTime()) / 60_000);
      now = next;
    }
    expect(delays.slice(0, 4)).toEqual([1, 5, 30, 120]);
    expect(now.getTime() - first.getTime()).toBeLessThanOrEqual(RETRY_WINDOW_MS);
    expect(now.getTime() - first.getTime()).toBeGreaterThan(RETRY_WINDOW_MS - 12 * 3600_000);
  });
});

describe('the streamed ZIP', () => {
  it('when entries are streamed, unzip finds each with its bytes and CRC intact', async () => {
    const files = { 'row-001/a.png': Buffer.from('first file'), 'row-002/b.txt': Buffer.alloc(200_000, 7) };
    async function* entries() {
      for (const [name, bytes] of Object.entries(files)) yield { name, open: async () => Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]) };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of zipStream(entries())) chunks.push(chunk as Buffer);
    const dir = mkdtempSync(join(tmpdir(), 'zip-'));
    writeFileSync(join(dir, 'out.zip'), Buffer.concat(chunks));
    expect(execFileSync('unzip', ['-t', join(dir, 'out.zip')], { encoding: 'utf8' })).toContain('No errors detected');
    expect(execFileSync('unzip', ['-p', join(dir, 'out.zip'), 'row-001/a.png'], { encoding: 'utf8' })).toBe('first file');
  });
});

describe('the OpenAPI document', () => {
  it('when it is built from the zod schemas, integers keep their real ranges and lose the safe-integer bounds zod adds', () => {
    const document = buildOpenApiDocument();
    const text = JSON.stringify(document);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    const quote = document.components.schemas.QuoteRequest as { properties: Record<string, { minimum?: number; maximum?: number }> };
    expect(quote.properties.resolutionX).toMatchObject({ minimum: 128, maximum: 4096 });
    expect(quote.properties.sceneId.minimum).toBeUndefined();
  });
});
