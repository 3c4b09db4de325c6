import S3rver from 's3rver';
import { mkdirSync } from 'node:fs';
import { assertPortFree, type Service } from './ports';

/**
 * s3rver in this process. It checks presigned POST policies (key prefix,
 * content-length-range, content type) as S3 does, so upload rules are tested
 * against real storage behaviour.
 */
export async function startS3rver(options: { port: number; directory: string; buckets: { name: string; cors?: string }[] }): Promise<Service> {
  await assertPortFree(options.port, 's3rver', 'S3_PORT');
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    port: options.port,
    address: '127.0.0.1',
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((bucket) => ({ name: bucket.name, configs: bucket.cors ? [bucket.cors] : [] })),
  });
  await server.run();
  return { name: 's3rver', endpoint: `http://127.0.0.1:${options.port}`, stop: () => server.close() };
}

/** CORS for the browser's presigned POST and GET, as the CDK stack sets on the buckets. */
export function corsConfiguration(origins: string[]): string {
  const allowed = origins.map((origin) => `<AllowedOrigin>${origin}</AllowedOrigin>`).join('');
  return `<CORSConfiguration><CORSRule>${allowed}<AllowedMethod>GET</AllowedMethod><AllowedMethod>POST</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule></CORSConfiguration>`;
}
