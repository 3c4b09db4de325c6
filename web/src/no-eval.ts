import { z } from 'zod';

// The site's CSP allows no eval (infra/content-security-policy.ts): zod would probe
// `new Function` on its first parse, caught but reported as a CSP violation.
z.config({ jitless: true });
