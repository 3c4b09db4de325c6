import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ses from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';

/**
 * SES: the sending identity for the product's e-mails (reports, reconciliation,
 * problem reports to support). SES e-mails the address a verification link when
 * the stack is deployed; until a production-access request is granted, SES also
 * delivers only to verified recipients (the README's Deploy section says how).
 */
export class Mail extends Construct {
  /** The identity this stack made, when it makes one (createMailIdentity). */
  readonly identity?: ses.EmailIdentity;
  readonly mailFrom: string;

  /**
   * SES identities belong to the account and Region, not to a stack: a second stage that made the same
   * address's identity again would fail with AlreadyExists, so only one stack makes it (`createIdentity`) and
   * the others send from the identity it verified. The send grant below names identities, not this one.
   */
  constructor(scope: Construct, id: string, props: { mailFrom: string; createIdentity: boolean }) {
    super(scope, id);
    this.mailFrom = props.mailFrom;
    if (props.createIdentity) this.identity = new ses.EmailIdentity(this, 'Sender', { identity: ses.Identity.email(props.mailFrom) });
  }

  /**
   * Allows sending from the product's address only. In the SES sandbox, SES also
   * authorises each verified recipient's identity, hence `identity/*` in this
   * account and region, narrowed by the sender condition.
   */
  grantSend(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        conditions: { StringEquals: { 'ses:FromAddress': this.mailFrom } },
      }),
    );
  }
}
