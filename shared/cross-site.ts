/**
 * True when a browser sent the request from another site: it carries an `Origin`
 * header that is not the origin of the address it was sent to (`Host`). Requests
 * without `Origin` (servers, the payment provider's webhook, API clients, a
 * same-origin GET) pass. Checked before any token is looked at: by the CloudFront
 * function on /api/* (`CROSS_SITE_GUARD_SOURCE`, before API Gateway's authorizer)
 * and by the local API server before its JWT check.
 */
export function fromAnotherSite(headers: Record<string, string | undefined>): boolean {
  const origin = headers.origin;
  if (origin === undefined) return false;
  const host = headers.host;
  return !host || (origin !== `https://${host}` && origin !== `http://${host}`);
}

/**
 * The same rule as `fromAnotherSite`, as a CloudFront Functions (JS 2.0) viewer-request
 * handler: it answers 403 in the API's error shape before the request reaches the API.
 * CloudFront's viewer Host is the site's own name (its domain or the custom one).
 */
export const CROSS_SITE_GUARD_SOURCE = `
function handler(event) {
  var request = event.request;
  var origin = request.headers.origin && request.headers.origin.value;
  var host = request.headers.host && request.headers.host.value;
  if (origin !== undefined && (!host || (origin !== 'https://' + host && origin !== 'http://' + host))) {
    return {
      statusCode: 403,
      statusDescription: 'Forbidden',
      headers: { 'content-type': { value: 'application/json' }, 'cache-control': { value: 'no-store' } },
      body: { encoding: 'text', data: '{"code":"forbidden","message":"Requests from another site are refused."}' },
    };
  }
  return request;
}`;
