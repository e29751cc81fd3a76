import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { EXIT, collectRoleAssignment, failure, integer, roleAssignments, serveUntilSignal } from '@opstream/stand-in-kit/cli';
import { startCosmosEmulator } from './index';

/**
 * The emulator as a process (`opstream-cosmos-emulator`, and `opstream emulator cosmos` in a
 * development install of opstream). Prints the endpoint and the master key (a local development
 * key, printed on purpose) and serves until SIGINT/SIGTERM, then flushes its journal and exits 0.
 */

interface CosmosEmulatorFlags {
  port: number;
  partitions: number;
  key?: string;
  dataDir?: string;
  host: '127.0.0.1' | 'localhost' | '::1';
  entraId?: string;
  roleAssignment: string[];
  disableLocalAuth?: boolean;
  advertisedHost?: string;
  tls?: boolean;
  tlsCertOut?: string;
}

export function cosmosEmulatorCommand(name = 'opstream-cosmos-emulator'): Command {
  return new Command(name)
    .description('run the local Cosmos DB emulator (real change feed, partitions, TTL, splits, fault injection) until SIGINT/SIGTERM')
    .option('--port <port>', 'TCP port on loopback (0 picks a free one)', integer('--port', 0, 65535), 8081)
    .option('--partitions <n>', 'physical partitions of every new container', integer('--partitions', 1, 1024), 4)
    .option('--key <key>', 'master key (base64); default: the well-known public emulator key')
    .option('--data-dir <dir>', 'journal directory: acknowledged writes survive kill -9 and restarts (default: memory only)')
    .addOption(new Option('--host <host>', 'loopback address to listen on').choices(['127.0.0.1', 'localhost', '::1']).default('127.0.0.1'))
    .option(
      '--entra-id <url>',
      'accept Entra ID tokens (type=aad) of the token service with this OpenID configuration URL (opstream emulator identity prints it)',
    )
    .option(
      '--role-assignment <oid=role>',
      'data-plane role of a principal under Entra ID (repeatable; default: every principal is a Data Contributor)',
      collectRoleAssignment('1234…=00000000-0000-0000-0000-000000000002'),
      [],
    )
    .option('--disable-local-auth', 'refuse master-key requests (401), as an account with disableLocalAuth: true; admin calls keep the key')
    .option('--tls', 'serve HTTPS with a self-signed certificate (needed for Entra ID: the SDK sends tokens over https only)')
    .option(
      '--tls-cert-out <file>',
      'with --tls: write the certificate (PEM) here, for cosmos.caFile (default: a file in the temp directory)',
    )
    .option('--advertised-host <host>', 'host the account read names as write location, like a regional host (e.g. localhost)')
    .action(async (flags: CosmosEmulatorFlags) => {
      let emu;
      try {
        emu = await startCosmosEmulator({
          port: flags.port,
          partitions: flags.partitions,
          key: flags.key,
          dataDir: flags.dataDir,
          host: flags.host,
          entraId: flags.entraId
            ? { openIdConfigurationUrl: flags.entraId, roleAssignments: roleAssignments(flags.roleAssignment) }
            : undefined,
          disableLocalAuth: flags.disableLocalAuth ?? false,
          advertisedHost: flags.advertisedHost,
          tls: flags.tls ?? flags.tlsCertOut !== undefined,
          onInternalError: (err) =>
            process.stderr.write(`cosmos emulator: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`),
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw failure(`cannot start the Cosmos emulator: ${message}`, EXIT.unavailable);
      }
      const out = process.stdout;
      out.write(
        `Cosmos DB emulator ready (${flags.partitions} partitions, ${flags.dataDir ? `journal in ${flags.dataDir}` : 'memory only'})\n`,
      );
      out.write(`endpoint: ${emu.endpoint}\n`);
      if (emu.caCertificate) {
        const file = flags.tlsCertOut ?? join(tmpdir(), `opstream-cosmos-emulator-${emu.port}.pem`);
        writeFileSync(file, emu.caCertificate);
        out.write(`certificate: ${file} (trust it: cosmos.caFile / OPSTREAM_COSMOS_CA_FILE)\n`);
      }
      if (emu.writeEndpoint !== emu.endpoint) out.write(`write location: ${emu.writeEndpoint}\n`);
      if (flags.entraId) out.write(`Entra ID: tokens of ${flags.entraId}${flags.disableLocalAuth ? '; local (key) auth disabled' : ''}\n`);
      out.write(`key: ${emu.key}\n`);
      out.write(`admin: ${emu.endpoint}_admin/ with "Authorization: Bearer <key>" (see the emulator's README)\n`);
      const running = emu;
      await serveUntilSignal('cosmos emulator', () => running.close(), out);
    });
}
