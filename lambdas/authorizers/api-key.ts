import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { authorizeApiKeyRequest } from '../../core/api-keys/authorize';
import { composeServer } from '../../composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

/**
 * The Lambda REQUEST authorizer (simple responses) of the `apiKey` routes.
 * API Gateway caches each answer per Authorization header for a short while
 * (infra/constructs/api.ts), so a revoked key may keep working for that long on AWS.
 */
export const handler = (event: APIGatewayRequestAuthorizerEventV2) => authorizeApiKeyRequest(event.headers);
