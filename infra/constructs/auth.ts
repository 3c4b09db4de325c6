import { Duration, Fn, RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { ServerFunction } from './server-function';

export interface AuthProps {
  siteUrl: string;
  mailFrom: string;
  supportEmail: string;
  cognitoEmailViaSes: boolean;
  google?: { clientId: string; clientSecretName: string; domainPrefix: string };
}

/** What the web app needs to start Google sign-in through Cognito's hosted UI. */
export interface OAuthSettings {
  domain: string;
  scopes: string[];
  redirectSignIn: string;
  redirectSignOut: string;
}

/**
 * Identity: the Cognito user pool (e-mail is the username), its `admin` group, the
 * web app's client, and Google as an identity provider when configured.
 */
export class Auth extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly customMessage: ServerFunction;
  readonly oauth?: OAuthSettings;

  constructor(scope: Construct, id: string, props: AuthProps) {
    super(scope, id);

    // Builds the verification e-mail whose link lands on the site's /login, which
    // confirms the account with the code it carries. It gets SITE_URL only: the
    // pool's id cannot be passed to the pool's own trigger (a circular reference).
    this.customMessage = new ServerFunction(this, 'CustomMessage', {
      entry: 'lambdas/triggers/custom-message.ts',
      environment: { SITE_URL: props.siteUrl },
      timeout: Duration.seconds(5),
      memorySize: 256,
    });

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A changed address takes effect only once its code is confirmed.
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      userVerification: { emailStyle: cognito.VerificationEmailStyle.CODE },
      // The product's own rule is 8 characters and a strength score of 3 of 5
      // (any three of length, upper, lower, digit, symbol), checked by the web app;
      // Cognito enforces the part it can express without rejecting valid choices.
      passwordPolicy: {
        minLength: 8,
        requireLowercase: false,
        requireUppercase: false,
        requireDigits: false,
        requireSymbols: false,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      lambdaTriggers: { customMessage: this.customMessage.fn },
      email: props.cognitoEmailViaSes
        ? cognito.UserPoolEmail.withSES({ fromEmail: props.mailFrom, replyTo: props.supportEmail, sesRegion: Stack.of(this).region })
        : cognito.UserPoolEmail.withCognito(props.supportEmail),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.userPool.addGroup('AdminGroup', { groupName: 'admin', description: 'Administrators: analytics and data management' });

    let google: cognito.UserPoolIdentityProviderGoogle | undefined;
    if (props.google) {
      google = new cognito.UserPoolIdentityProviderGoogle(this, 'Google', {
        userPool: this.userPool,
        clientId: props.google.clientId,
        // A dynamic reference: CloudFormation reads the secret at deploy time, so it
        // never appears in the template and synth needs no credentials.
        clientSecretValue: SecretValue.secretsManager(props.google.clientSecretName),
        scopes: ['openid', 'email', 'profile'],
        // Google has verified the address; without the mapping the API would treat
        // a Google user as unverified and refuse renders.
        attributeMapping: {
          email: cognito.ProviderAttribute.GOOGLE_EMAIL,
          custom: { email_verified: cognito.ProviderAttribute.other('email_verified') },
        },
      });
      const domain = this.userPool.addDomain('HostedUi', { cognitoDomain: { domainPrefix: props.google.domainPrefix } });
      this.oauth = {
        domain: Fn.select(2, Fn.split('/', domain.baseUrl())),
        scopes: ['openid', 'email', 'profile'],
        redirectSignIn: `${props.siteUrl}/login`,
        redirectSignOut: `${props.siteUrl}/`,
      };
    }

    this.client = this.userPool.addClient('WebClient', {
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      // The login errors tell "no user with this address" from "wrong
      // password", so Cognito must report which one happened.
      preventUserExistenceErrors: false,
      enableTokenRevocation: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      // Writable: the e-mail, and with Google its verification flag, because
      // federation writes mapped attributes through the client (Cognito refuses
      // email_verified in a user's own UpdateUserAttributes). No custom attribute
      // exists, so none is user-writable.
      readAttributes: new cognito.ClientAttributes().withStandardAttributes({ email: true, emailVerified: true }),
      writeAttributes: new cognito.ClientAttributes().withStandardAttributes({ email: true, emailVerified: google !== undefined }),
      supportedIdentityProviders: google
        ? [cognito.UserPoolClientIdentityProvider.COGNITO, cognito.UserPoolClientIdentityProvider.GOOGLE]
        : [cognito.UserPoolClientIdentityProvider.COGNITO],
      ...(this.oauth
        ? {
            oAuth: {
              flows: { authorizationCodeGrant: true },
              scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
              callbackUrls: [this.oauth.redirectSignIn],
              logoutUrls: [this.oauth.redirectSignOut],
            },
          }
        : { disableOAuth: true }),
    });
    if (google) this.client.node.addDependency(google);
  }
}
