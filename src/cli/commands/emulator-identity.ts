import { Command, InvalidArgumentError } from 'commander';
import { EXIT } from '../exit-codes';
import { loadDevelopmentModule } from '../development-install';

/**
 * `opstream emulator identity`: the local Entra ID token service (infra/identity) as a process. Prints
 * the variables that point `DefaultAzureCredential` at it and serves until SIGINT/SIGTERM.
 */
interface IdentityFlags {
  port: number;
  tenantId?: string;
  clientId: string[];
  identityHeader?: string;
  adminToken?: string;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port must be an integer from 0 to 65535.');
  return n;
}

export function registerEmulatorIdentity(emulator: Command): void {
  emulator
    .command('identity')
    .description('run the local Entra ID token service (managed identity endpoint, signed JWTs, OpenID keys) until SIGINT/SIGTERM')
    .option('--port <port>', 'TCP port on 127.0.0.1 (0 picks a free one)', port, 0)
    .option('--tenant-id <id>', 'tenant id of the tokens (default: random)')
    .option(
      '--client-id <id>',
      'a user-assigned identity to know besides the system-assigned one (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option('--identity-header <secret>', 'the IDENTITY_HEADER value clients must send (default: random)')
    .option('--admin-token <token>', 'bearer token of the /_admin/ calls (default: random)')
    .action(async (flags: IdentityFlags) => {
      // Loaded here, not at the top: the production image ships no stand-in code.
      const { startTokenService } = await loadDevelopmentModule('emulator identity', () => import('@opstream/token-service'));
      let ts;
      try {
        ts = await startTokenService({
          port: flags.port,
          tenantId: flags.tenantId,
          principals: [{ systemAssigned: true }, ...flags.clientId.map((clientId) => ({ clientId }))],
          identityHeader: flags.identityHeader,
          adminToken: flags.adminToken,
        });
      } catch (err) {
        throw Object.assign(new Error(`cannot start the token service: ${err instanceof Error ? err.message : String(err)}`), {
          exitCode: EXIT.unavailable,
        });
      }
      const out = process.stdout;
      out.write(`Entra ID token service ready (tenant ${ts.tenantId})\n`);
      for (const [name, value] of Object.entries(ts.env())) out.write(`export ${name}=${value}\n`);
      out.write(`issuer: ${ts.issuer}\nopenid-configuration: ${ts.openIdConfigurationUrl}\n`);
      for (const p of ts.principals())
        out.write(`principal: client id ${p.clientId}, object id ${p.objectId}${p.systemAssigned ? ' (system-assigned)' : ''}\n`);
      out.write(`admin: ${ts.url}/_admin/ with "Authorization: Bearer ${ts.adminToken}" (see infra/identity/README.md)\n`);
      const running = ts;
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          out.write(`token service: ${signal}, shutting down\n`);
          void running.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
