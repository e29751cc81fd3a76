import * as fs from 'node:fs';
import type { JsonWebKey } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { EXIT, collectRoleAssignment, failure, integer, roleAssignments, serveUntilSignal } from '@opstream/stand-in-kit/cli';
import { startServiceBus } from './index';

/**
 * The Service Bus stand-in as a process (`opstream-service-bus-emulator`, and `opstream emulator
 * service-bus` in a development install of opstream). Prints the connection string (the official
 * emulator's well-known local key, printed on purpose) and the admin address, and serves until
 * SIGINT/SIGTERM, then flushes its journal and exits 0.
 */
interface ServiceBusFlags {
  port: number;
  adminPort: number;
  config?: string;
  dataDir?: string;
  keyName?: string;
  key?: string;
  host: '127.0.0.1' | 'localhost' | '::1';
  tls?: boolean;
  tlsPort: number;
  tlsCertOut?: string;
  entraId?: string;
  roleAssignment: string[];
  disableLocalAuth?: boolean;
}

/** The issuer and signing keys of a token service, from its OpenID configuration (what the namespace trusts). */
async function trustedIssuer(openIdConfigurationUrl: string): Promise<{ issuer: string; jwks: { keys: JsonWebKey[] } }> {
  const config = (await (await fetch(openIdConfigurationUrl)).json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof config.issuer !== 'string' || typeof config.jwks_uri !== 'string')
    throw new Error(`${openIdConfigurationUrl} names no issuer or jwks_uri`);
  const jwks = (await (await fetch(config.jwks_uri)).json()) as { keys?: unknown };
  if (!Array.isArray(jwks.keys)) throw new Error(`${config.jwks_uri} holds no keys`);
  return { issuer: config.issuer, jwks: { keys: jwks.keys as JsonWebKey[] } };
}

export function serviceBusEmulatorCommand(name = 'opstream-service-bus-emulator'): Command {
  return new Command(name)
    .description('run the local Service Bus stand-in (AMQP 1.0 for @azure/service-bus, official emulator Config.json) until SIGINT/SIGTERM')
    .option('--port <port>', 'AMQP port on loopback (0 picks a free one)', integer('--port', 0, 65535), 5672)
    .option('--admin-port <port>', 'admin HTTP port on loopback (0 picks a free one)', integer('--admin-port', 0, 65535), 0)
    .option('--config <file>', "entities in the official Service Bus emulator's Config.json format")
    .option('--data-dir <dir>', 'journal directory: acknowledged sends survive kill -9 and restarts (default: memory only)')
    .option('--key-name <name>', 'shared access key name (default: RootManageSharedAccessKey)')
    .option('--key <key>', "shared access key (default: the official emulator's SAS_KEY_VALUE)")
    .addOption(new Option('--host <host>', 'loopback address to listen on').choices(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1'))
    .option('--tls', 'also listen for AMQPS with a self-signed certificate (needed for Entra ID: the SDK uses TLS with a token credential)')
    .option('--tls-port <port>', 'with --tls: the AMQPS port on loopback (0 picks a free one)', integer('--tls-port', 0, 65535), 5671)
    .option(
      '--tls-cert-out <file>',
      'write the certificate (PEM) of the AMQPS port and the administration API here, for NODE_EXTRA_CA_CERTS (default: a file in the temp directory); implies --tls',
    )
    .option(
      '--entra-id <url>',
      'accept Entra ID tokens (type jwt) of the token service with this OpenID configuration URL (opstream emulator identity prints it)',
    )
    .option(
      '--role-assignment <oid=role>',
      'Service Bus data role of a principal under Entra ID, e.g. <oid>="Azure Service Bus Data Sender" (repeatable)',
      collectRoleAssignment('1234…="Azure Service Bus Data Sender"'),
      [],
    )
    .option('--disable-local-auth', 'refuse SAS tokens (put-token 401 LocalAuthDisabled), as a namespace with disableLocalAuth: true')
    .action(async (flags: ServiceBusFlags) => {
      let config: unknown;
      if (flags.config) {
        try {
          config = JSON.parse(fs.readFileSync(flags.config, 'utf8'));
        } catch (err) {
          throw failure(`cannot read --config ${flags.config}: ${err instanceof Error ? err.message : String(err)}`, EXIT.config);
        }
      }
      let emu;
      try {
        const trusted = flags.entraId ? await trustedIssuer(flags.entraId) : undefined;
        emu = await startServiceBus({
          tls: flags.tls ?? flags.tlsCertOut !== undefined,
          tlsPort: flags.tlsPort,
          disableLocalAuth: flags.disableLocalAuth ?? false,
          entraId: trusted && { jwks: trusted.jwks, issuers: [trusted.issuer], roleAssignments: roleAssignments(flags.roleAssignment) },
          port: flags.port,
          adminPort: flags.adminPort,
          host: flags.host,
          config,
          dataDir: flags.dataDir,
          keys:
            flags.key || flags.keyName
              ? [{ name: flags.keyName ?? 'RootManageSharedAccessKey', key: flags.key ?? 'SAS_KEY_VALUE' }]
              : undefined,
          onInternalError: (err) =>
            process.stderr.write(
              `service bus emulator: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
            ),
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const exitCode = /Config|Properties|Namespaces|Queues|Topics|ISO 8601/.test(message) ? EXIT.config : EXIT.unavailable;
        throw failure(`cannot start the Service Bus emulator: ${message}`, exitCode);
      }
      const out = process.stdout;
      out.write(`Service Bus emulator ready (${flags.dataDir ? `journal in ${flags.dataDir}` : 'memory only'})\n`);
      out.write(`connection string: ${emu.connectionString}${flags.disableLocalAuth ? ' (refused: local auth disabled)' : ''}\n`);
      // the certificate of the AMQPS port and of the administration API's HTTPS (on the AMQP port)
      const file = flags.tlsCertOut ?? join(tmpdir(), `opstream-service-bus-emulator-${emu.tlsPort ?? emu.port}.pem`);
      fs.writeFileSync(file, emu.caCertificate);
      if (emu.tlsEndpoint) out.write(`AMQPS endpoint: ${emu.tlsEndpoint} (serviceBus.endpoint / OPSTREAM_SERVICE_BUS_ENDPOINT)\n`);
      out.write(
        `administration API: https://${emu.host === '::1' ? '[::1]' : emu.host}:${emu.port} (ServiceBusAdministrationClient with the connection string)\n`,
      );
      out.write(`certificate: ${file} (trust it: NODE_EXTRA_CA_CERTS)\n`);
      if (flags.entraId) out.write(`Entra ID: tokens of ${flags.entraId}${flags.disableLocalAuth ? '; local (SAS) auth disabled' : ''}\n`);
      out.write(`admin: ${emu.adminUrl} with "Authorization: Bearer <key>" (see the stand-in's README)\n`);
      const running = emu;
      await serveUntilSignal('service bus emulator', () => running.close(), out);
    });
}
