import { authenticated, EMAIL_SERVERS, type Json, ok, param } from './operation';
import { ref } from './schemas';

/** Email servers (docs/email-servers.md). */
export const EMAIL_SERVER_PATHS: Record<string, Json> = {
  '/api/v1/email_servers': {
    get: authenticated({
      operationId: 'listEmailServers',
      summary: 'List email servers',
      description: 'Passwords are redacted.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of email servers.', ref('EmailServerList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createEmailServer',
      summary: 'Add an email server',
      description:
        '`tls` defaults to `starttls`; `none` is refused (422) for a host other than loopback unless SMTP_ALLOW_PLAINTEXT=true. A host that is, or resolves to, a loopback, private, link-local or metadata address (IP literals in every numeric form included) is refused (422) unless SMTP_ALLOW_PRIVATE=true.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      body: { schema: ref('EmailServerCreateBody') },
      responses: { '201': ok('Created, the password redacted.', ref('EmailServer')) },
      errors: ['422'],
    }),
  },
  '/api/v1/email_servers/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getEmailServer',
      summary: 'Get an email server',
      description: 'Unknown: 404 "Email server not found".',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_read',
      responses: { '200': ok('The server, the password redacted.', ref('EmailServer')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateEmailServer',
      summary: 'Update an email server',
      description:
        'Changes the fields the body carries. A `smtp_password` equal to the redacted value (8 `•`) leaves the password unchanged; a change of `host`, `port` or `tls` without a new password clears it.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      body: { schema: ref('EmailServerUpdateBody') },
      responses: { '200': ok('The server, the password redacted.', ref('EmailServer')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteEmailServer',
      summary: 'Delete an email server',
      description: 'A server named by a scheduled, sending or paused broadcast: 422.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/email_servers/{id}/test_connection': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'testEmailServerConnection',
      summary: 'Check the connection to an email server',
      description:
        'A real SMTP handshake (TLS as configured, AUTH if set) that sends nothing, to the address the host resolves to under the address policy. Every failure answers `ok: false` with one generic message, after the same fixed wait (10 s), whatever failed.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      responses: { '200': ok('What the handshake showed.', ref('SmtpCheck')) },
      errors: ['404'],
    }),
  },
  '/api/v1/email_servers/{id}/generate_dkim_key': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'generateDkimKey',
      summary: 'Generate a DKIM key for an email server',
      description: 'A new RSA 2048 key, kept encrypted; from now on every message through the server is signed with it. Publish the returned TXT record.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      body: { schema: ref('DkimKeyBody'), required: false },
      responses: { '200': ok('The record to publish in DNS.', ref('DkimRecord')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/email_servers/{id}/copy_to_channel': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'copyEmailServerToChannel',
      summary: 'Copy an email server to another channel',
      description:
        'Admin token only: a channel token gets 403 "Admin API token required for cross-channel operations". The server is found by its id, in the channel named by `broadcast_channel_id` when the request names one. The copy keeps every setting, the password and the DKIM key included (copied encrypted, never shown). Unknown server or target channel: 404; the target being the source channel: 422.',
      tag: EMAIL_SERVERS,
      permission: 'email_servers_write',
      body: { schema: ref('CopyToChannelBody') },
      responses: { '201': ok('The copy, in the target channel, the password redacted.', ref('EmailServer')) },
      errors: ['403', '404', '422'],
    }),
  },
};
