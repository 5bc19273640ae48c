// Starts the BFF: configuration, database (migrated), bootstrap admin, HTTP server, graceful stop.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { describeDatabaseError } from './db/migrations.js';
import { checkSecrets } from './db/secret-check.js';
import { createLogger, logAuditHead } from './logger.js';
import { PgNotifyEventBus } from './payments/index.js';
import { shutdown } from './shutdown.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`paydesk-bff: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // One id for this instance: on every log line and in every job lease it holds.
  const instanceId = randomUUID();
  const logger = createLogger(config.logLevel, undefined, instanceId);
  const db = await openDatabase(config.database, 10, (err) => {
    logger.warn({ err }, 'an idle database connection failed');
  });
  try {
    if ((await checkSecrets(db, config.sessionSecret, Date.now())) === 'recorded')
      logger.info('recorded the session secret’s key check in the database');
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`paydesk-bff: ${err.message}\n`);
      await db.close();
      process.exit(2);
    }
    throw err;
  }
  // With PostgreSQL (several instances) live updates travel through LISTEN/NOTIFY, so a browser
  // connected to one instance sees changes made through another.
  const eventBus =
    config.database.kind === 'postgres'
      ? await PgNotifyEventBus.connect(config.database.url, logger)
      : undefined;
  const { app, services, payments, payouts } = createApp({
    config,
    db,
    logger,
    instanceId,
    ...(eventBus === undefined ? {} : { eventBus }),
  });
  await logAuditHead(services.audit, logger);
  if (
    config.bootstrapAdmin !== null &&
    (await services.users.bootstrapAdmin(config.bootstrapAdmin))
  ) {
    logger.info({ email: config.bootstrapAdmin.email }, 'created the first administrator');
  }
  payments.reconciler.start();
  payouts.poller.start();

  const server = createServer(app);
  server.once('error', (err: NodeJS.ErrnoException) => {
    const reason =
      err.code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use (set PORT to another port)`
        : err.message;
    process.stderr.write(`paydesk-bff: cannot listen: ${reason}\n`);
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    logger.info(
      { port, publicOrigin: config.publicOrigin, database: config.database.kind },
      'paydesk-bff listening',
    );
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    shutdown({
      server,
      endStreams: () => {
        payments.streams.endAll();
      },
      close: async () => {
        await Promise.all([payments.close(), payouts.close()]);
        await db.close();
      },
      timeoutMs: config.shutdownTimeoutMs,
    }).then(
      ({ forced }) => {
        if (forced) {
          logger.warn(
            { shutdownTimeoutMs: config.shutdownTimeoutMs },
            'requests still open at the shutdown timeout were cut',
          );
        }
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`paydesk-bff: failed to start: ${describeDatabaseError(err)}\n`);
  process.exit(1);
});
