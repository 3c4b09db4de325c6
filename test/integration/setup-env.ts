import { inject } from 'vitest';
import { resetConfig } from '#core/config';
import { composeServer, resetClients } from '#composition/server';

// Test files read and seed the same table, buckets and pool as the API under test.
Object.assign(process.env, inject('stackEnv'));
resetConfig();
resetClients();
composeServer();
