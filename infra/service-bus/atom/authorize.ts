import { Authenticator, TokenError } from '../auth';

/**
 * The administration API's authorisation, as the AMQP side's `$cbs`: `Authorization: SharedAccessSignature …`
 * (the SDK signs the request URL) or `Bearer <Entra ID token>`; every call needs the Manage right
 * (Azure Service Bus Data Owner). Refusals are 401, as the service answers them.
 */
export class Unauthorized extends Error {}

export function authorize(auth: Authenticator, header: string | undefined, url: string): void {
  if (!header) throw new Unauthorized('MissingToken: The authorization header was not provided.');
  const bearer = /^Bearer\s+(.+)$/i.exec(header.trim());
  let rights;
  try {
    rights = bearer ? auth.validate('jwt', bearer[1], url).rights : auth.validate('servicebus.windows.net:sastoken', header, url).rights;
  } catch (err) {
    if (err instanceof TokenError) throw new Unauthorized(err.message);
    throw err;
  }
  if (!rights.has('Manage')) throw new Unauthorized("Unauthorized access. 'Manage' claim(s) are required to perform this operation.");
}
