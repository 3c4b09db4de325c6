/**
 * How long a customer's upload lives. A free test exists to check the settings before paying, so the paid render and
 * the live previews of the same file follow it: a test keeps the upload. A paid render deletes it once its result is
 * stored (the About page's "deleted after processing"). An upload no paid render used goes with the uploads bucket's
 * lifecycle (infra/constructs/storage.ts) a day after it was last stored: after its upload, or after the free test that
 * last used it (core/jobs/render-jobs.ts renews it then). Pure: the render worker imports it.
 */
export function keepsUploadAfterRender(job: { isTest?: boolean }): boolean {
  return job.isTest === true;
}
