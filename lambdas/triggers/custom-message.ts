import type { CustomMessageTriggerEvent } from 'aws-lambda';
import { authMessage, type AuthMessageSource } from '#core/users/auth-messages';

/**
 * Cognito's CustomMessage trigger: the verification e-mail carries a link to
 * the site's /login, which confirms the account with the code. The local
 * identity service builds the same e-mail from the same function.
 */
export const handler = async (event: CustomMessageTriggerEvent): Promise<CustomMessageTriggerEvent> => {
  const source = event.triggerSource.replace(/^CustomMessage_/, '') as AuthMessageSource;
  const email = event.request.userAttributes.email ?? '';
  const siteUrl = process.env.SITE_URL ?? '';
  // Cognito substitutes the real code for its placeholder when it sends the message.
  const message = authMessage(source, siteUrl, email, event.request.codeParameter);
  event.response.emailSubject = message.subject;
  event.response.emailMessage = message.text.replace(/\n/g, '<br>');
  return event;
};
