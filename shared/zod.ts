import { z } from 'zod';

// No eval wherever zod runs: the site's CSP allows none (infra/content-security-policy.ts),
// and zod's compiled fast path probes `new Function` when an object schema is built
// (caught, but reported as a CSP violation). Every schema module imports z from here,
// so this runs before the first schema, in whichever chunk the schemas load.
z.config({ jitless: true });

export { z };
