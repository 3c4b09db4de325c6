import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { checkPostPolicy } from './s3-post-policy';
import { freePort, listen, type Service } from './ports';

/** s3rver's fixed credentials: the local stack signs with them. */
export const S3RVER_SECRET = 'S3RVER';
/** Larger bodies are not buffered for the policy check (S3's POST limit is 5 GB; ours are far smaller). */
const MAX_POST_BYTES = 200 * 1024 * 1024;

/**
 * s3rver, in this process, behind a small proxy that checks presigned POST
 * policies as S3 does (s3rver itself ignores them), so upload rules are tested
 * against storage that really refuses what it should.
 */
export async function startS3rver(options: { port: number; directory: string; buckets: { name: string; cors?: string }[] }): Promise<Service> {
  mkdirSync(options.directory, { recursive: true });
  const innerPort = await freePort();
  const s3rver = new S3rver({
    port: innerPort,
    address: '127.0.0.1',
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((bucket) => ({ name: bucket.name, configs: bucket.cors ? [bucket.cors] : [] })),
  });
  await s3rver.run();

  const forward = (req: IncomingMessage, res: ServerResponse, body?: Buffer) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      res.writeHead(502);
      res.end(String(error));
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
  };

  const server = await listen(
    async (req, res) => {
      const bucket = /^\/([^/?]+)\/?(?:\?.*)?$/.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || !bucket || !(req.headers['content-type'] ?? '').startsWith('multipart/form-data')) return forward(req, res);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > MAX_POST_BYTES) {
          res.writeHead(400, { 'content-type': 'application/xml' });
          return res.end('<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed size</Message></Error>');
        }
        chunks.push(chunk as Buffer);
      }
      const body = Buffer.concat(chunks);
      const form = await new Request('http://local/', { method: 'POST', headers: { 'content-type': req.headers['content-type']! }, body }).formData();
      const refusal = await checkPostPolicy(form, bucket, S3RVER_SECRET);
      if (refusal) {
        res.writeHead(refusal.status, { 'content-type': 'application/xml', 'access-control-allow-origin': req.headers.origin ?? '*' });
        return res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${refusal.code}</Code><Message>${refusal.message}</Message></Error>`);
      }
      forward(req, res, body);
    },
    options.port,
    's3rver',
    'S3_PORT',
  );
  return {
    name: 's3rver',
    endpoint: `http://127.0.0.1:${options.port}`,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await s3rver.close();
    },
  };
}

/** CORS for the browser's presigned POST and GET, as the CDK stack sets on the buckets. */
export function corsConfiguration(origins: string[]): string {
  const allowed = origins.map((origin) => `<AllowedOrigin>${origin}</AllowedOrigin>`).join('');
  return `<CORSConfiguration><CORSRule>${allowed}<AllowedMethod>GET</AllowedMethod><AllowedMethod>POST</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule></CORSConfiguration>`;
}
