/**
 * The environment Blender and ffmpeg run with: the worker's, minus every AWS
 * credential and the container's credential endpoint. They read a user's upload,
 * so they are the likeliest code to be turned against us, and they need no AWS
 * access at all: the worker downloads and uploads for them.
 */
const CREDENTIAL_VARIABLES = /^(AWS_ACCESS_KEY_ID|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|AWS_CONTAINER_CREDENTIALS_RELATIVE_URI|AWS_CONTAINER_CREDENTIALS_FULL_URI|AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE)?|AWS_WEB_IDENTITY_TOKEN_FILE|AWS_ROLE_ARN|ECS_CONTAINER_METADATA_URI(_V4)?|WORKER_SCOPE_ROLE_ARN|WORKER_SESSION_FUNCTION|WORKER_TICKET|AWS_LAMBDA_RUNTIME_API)$/;

export function toolEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_VARIABLES.test(name)));
}
