import type { Server } from 'node:http';
import type { Messages } from 'cognito-local/lib/services/messages.js';
import { authMessage } from '#core/users/auth-messages';
import { writeLocalMail } from '#adapters/mailer';
import { listen, type Service } from './ports';

/**
 * cognito-local, run in this process so that its e-mails (verification links,
 * password reset codes) land in the local mail folder exactly as SES would
 * deliver them on AWS, built by the same message code as the CustomMessage trigger.
 */
export async function startCognitoLocal(options: { port: number; dataDir: string; mailDir: string; mailFrom: string; siteUrl: () => string }): Promise<Service> {
  // cognito-local loads the v2 AWS SDK for its (unused) Lambda triggers; keep its end-of-life notice quiet.
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
  const [{ default: pino }, { createServer }, { Router }, { DefaultConfig }, services_, { CognitoServiceFactoryImpl }, { UserPoolServiceFactoryImpl, attributesAppend, attribute }, { StormDBDataStoreFactory }, { CryptoService }, { JwtTokenGenerator }, { otp }, { NotAuthorizedError, UserNotFoundError }] =
    await Promise.all([
      import('pino'),
      import('cognito-local/lib/server/server.js'),
      import('cognito-local/lib/server/Router.js'),
      import('cognito-local/lib/server/config.js'),
      import('cognito-local/lib/services/index.js'),
      import('cognito-local/lib/services/cognitoService.js'),
      import('cognito-local/lib/services/userPoolService.js'),
      import('cognito-local/lib/services/dataStore/stormDb.js'),
      import('cognito-local/lib/services/crypto.js'),
      import('cognito-local/lib/services/tokenGenerator.js'),
      import('cognito-local/lib/services/otp.js'),
      import('cognito-local/lib/errors.js'),
    ]);
  const { DateClock, TriggersService, LambdaService } = services_;
  const logger = pino({ level: 'silent' });
  const ctx = { logger };
  const issuerDomain = `http://127.0.0.1:${options.port}`;
  const config = {
    ...DefaultConfig,
    TokenConfig: { IssuerDomain: issuerDomain },
    ServerConfig: { ...DefaultConfig.ServerConfig, port: options.port, hostname: '127.0.0.1' },
  };
  const clock = new DateClock();
  const dataStoreFactory = new StormDBDataStoreFactory(options.dataDir);
  const cognito = await new CognitoServiceFactoryImpl(
    options.dataDir,
    dataStoreFactory,
    new UserPoolServiceFactoryImpl(clock, dataStoreFactory),
  ).create(ctx, config.UserPoolDefaults);
  // cognito-local's Lambda client is never called: no trigger is configured.
  const triggers = new TriggersService(clock, cognito, new LambdaService({}, null as never), new CryptoService(config.KMSConfig));
  const messages: Messages = {
    async deliver(_ctx, source, _clientId, _poolId, _user, code, _meta, details) {
      if (details.DeliveryMedium !== 'EMAIL') return;
      const mail = authMessage(source, options.siteUrl(), details.Destination, code);
      await writeLocalMail(options.mailDir, options.mailFrom, { to: details.Destination, ...mail });
    },
  };
  const services = { clock, cognito, config, messages, otp, tokenGenerator: new JwtTokenGenerator(clock, triggers, config.TokenConfig), triggers };
  // Two places where cognito-local answers differently from Cognito, fixed here so the
  // local product behaves as on AWS:
  // - Cognito marks the e-mail verified when a sign-up is confirmed with the code it
  //   e-mailed (the pool verifies e-mail automatically); cognito-local only confirms the
  //   account, so a user who signed up and followed the link could never sign in.
  // - A wrong password (sign-in, or the current password of a password change) is
  //   Cognito's NotAuthorizedException; cognito-local says InvalidPasswordException,
  //   which means "does not meet the password policy" and showed the wrong message.
  // - A sign-in with an address that has no account is UserNotFoundException on a
  //   Cognito client that does not hide which users exist (the stack's client, because
  //   login tells the two apart); cognito-local always says NotAuthorizedException.
  const route = Router(services);
  const router: typeof route = (target) => {
    const handler = route(target);
    if (target === 'ConfirmSignUp') {
      return async (requestCtx, req) => {
        const result = await handler(requestCtx, req);
        const pool = await cognito.getUserPoolForClientId(requestCtx, req.ClientId);
        const user = await pool.getUserByUsername(requestCtx, req.Username);
        if (user) await pool.saveUser(requestCtx, { ...user, Attributes: attributesAppend(user.Attributes, attribute('email_verified', 'true')) });
        return result;
      };
    }
    if (target === 'InitiateAuth' || target === 'AdminInitiateAuth' || target === 'ChangePassword') {
      return (requestCtx, req) =>
        handler(requestCtx, req).catch(async (error: { code?: string }) => {
          if (error?.code === 'InvalidPasswordException') throw new NotAuthorizedError('Incorrect username or password.');
          const username = 'AuthFlow' in req && req.AuthFlow === 'USER_PASSWORD_AUTH' ? req.AuthParameters?.USERNAME : undefined;
          if (error?.code === 'NotAuthorizedException' && username && 'ClientId' in req && req.ClientId) {
            const pool = await cognito.getUserPoolForClientId(ctx, req.ClientId);
            if (!(await pool.getUserByUsername(ctx, username))) throw new UserNotFoundError('User does not exist.');
          }
          throw error;
        });
    }
    return handler;
  };
  const app = createServer(router, logger, config.ServerConfig, services).application;
  const server: Server = await listen(app, options.port, 'cognito-local');
  return { name: 'cognito-local', endpoint: issuerDomain, stop: () => closeServer(server) };
}

export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
