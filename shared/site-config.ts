import { z } from './zod';

/**
 * The web app's runtime settings, /config.json. The CDK stack writes it to the
 * site bucket; the local stack serves it; the SPA reads and validates it once
 * before rendering. One schema for the three of them.
 */
export const siteConfigSchema = z.object({
  region: z.string().min(1),
  userPoolId: z.string().min(1),
  userPoolClientId: z.string().min(1),
  /** Local only: cognito-local's address, passed to Amplify as userPoolEndpoint. */
  userPoolEndpoint: z.string().url().optional(),
  paymentsMode: z.enum(['stripe', 'local']),
  stripePublishableKey: z.string().optional(),
  googleSignIn: z.boolean(),
  /** Cognito's hosted UI for Google sign-in; present only when Google is configured. */
  oauth: z
    .object({ domain: z.string().min(1), scopes: z.array(z.string()), redirectSignIn: z.string(), redirectSignOut: z.string() })
    .optional(),
  /** SHA-256 hex of the site gate password; absent means no gate. */
  siteGateHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});

export type SiteConfig = z.infer<typeof siteConfigSchema>;
