import { describe, expect, it } from 'vitest';
import { securityHeaderProblems } from '#scripts/smoke';

/** The headers infra/constructs/site.ts asks CloudFront to add, as CloudFront sends them. */
const cloudFrontHeaders = () =>
  new Headers({
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'content-security-policy': "frame-ancestors 'none'; object-src 'none'; base-uri 'self'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  });

describe('smoke test: security headers', () => {
  it('when the response carries the headers the site policy adds, it finds no problem', () => {
    expect(securityHeaderProblems(cloudFrontHeaders())).toEqual([]);
  });

  it('when a header is missing or weaker, it names each one', () => {
    const headers = cloudFrontHeaders();
    headers.delete('x-frame-options');
    headers.set('strict-transport-security', 'max-age=300');
    headers.set('content-security-policy', "default-src 'self'");
    const problems = securityHeaderProblems(headers);
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/Strict-Transport-Security .*max-age=300/);
    expect(problems.join('\n')).toMatch(/Content-Security-Policy should forbid framing/);
    expect(problems.join('\n')).toMatch(/X-Frame-Options should be DENY \(got ""\)/);
  });
});
