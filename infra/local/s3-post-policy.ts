import { createHmac } from 'node:crypto';

/**
 * Local only. s3rver stores browser-based POST uploads without checking their
 * policy; S3 does check it. This applies S3's rules for a presigned POST so the
 * local stack refuses what S3 would refuse: a bad signature, an expired policy,
 * a key, content type or size outside the conditions, or a field no condition
 * covers. Returns null when the upload is acceptable, else S3's error.
 */
export async function checkPostPolicy(
  form: FormData,
  bucket: string,
  secretAccessKey: string,
  now = new Date(),
): Promise<{ status: number; code: string; message: string } | null> {
  const denied = (message: string) => ({ status: 403, code: 'AccessDenied', message });
  const text = (name: string) => {
    for (const [key, value] of form.entries()) if (key.toLowerCase() === name.toLowerCase() && typeof value === 'string') return value;
    return undefined;
  };
  const policyBase64 = text('policy');
  const signature = text('x-amz-signature');
  const credential = text('x-amz-credential');
  if (!policyBase64 || !signature || !credential) return denied('Bucket POST must contain a policy, a signature and a credential');

  const [, date, region, service] = credential.split('/');
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  if (createHmac('sha256', signingKey).update(policyBase64).digest('hex') !== signature) {
    return denied('The request signature we calculated does not match the signature you provided.');
  }

  const policy = JSON.parse(Buffer.from(policyBase64, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
  if (Date.parse(policy.expiration) < now.getTime()) return denied('Invalid according to Policy: Policy expired.');

  const file = form.get('file');
  const size = file instanceof Blob ? file.size : 0;
  const fields: Record<string, string> = { bucket };
  for (const [key, value] of form.entries()) if (typeof value === 'string') fields[key.toLowerCase()] = value;
  const covered = new Set<string>(['file', 'policy', 'x-amz-signature']);

  for (const condition of policy.conditions) {
    if (Array.isArray(condition) && condition[0] === 'content-length-range') {
      const [, min, max] = condition as [string, number, number];
      if (size < min) return { status: 400, code: 'EntityTooSmall', message: 'Your proposed upload is smaller than the minimum allowed size' };
      if (size > max) return { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size' };
      continue;
    }
    const [operator, name, expected] = Array.isArray(condition)
      ? (condition as [string, string, string])
      : (['eq', `$${Object.keys(condition as object)[0]}`, Object.values(condition as object)[0]] as [string, string, string]);
    const field = name.replace(/^\$/, '').toLowerCase();
    covered.add(field);
    const actual = fields[field] ?? '';
    const holds = operator === 'eq' ? actual === expected : operator === 'starts-with' ? actual.startsWith(expected) : false;
    if (!holds) return denied(`Invalid according to Policy: Policy Condition failed: ["${operator}", "$${field}", "${expected}"]`);
  }
  const uncovered = Object.keys(fields).filter((field) => !covered.has(field) && !field.startsWith('x-ignore-'));
  if (uncovered.length > 0) return denied(`Invalid according to Policy: Extra input fields: ${uncovered.join(', ')}`);
  return null;
}
