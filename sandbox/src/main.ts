// `node sandbox/dist/main.js`: configuration from the environment, listen, graceful shutdown.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino } from 'pino';
import { createSandbox } from './app.js';
import { ConfigError, loadStartupConfig } from './config.js';

function start(): void {
  let startup;
  try {
    startup = loadStartupConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sandbox: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino({ level: startup.logLevel, base: { service: 'sandbox' } });
  if (startup.dbPath !== undefined) mkdirSync(dirname(startup.dbPath), { recursive: true });
  const sandbox = createSandbox({ config: startup.sandbox, dbPath: startup.dbPath, logger });
  const server = sandbox.app.listen(startup.port, startup.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : startup.port;
    logger.info(
      {
        url: `http://${startup.host}:${port}/paynet`,
        merchants: startup.sandbox.merchants.map((m) => m.login),
        db: startup.dbPath ?? 'memory',
      },
      'sandbox listening',
    );
  });
  server.keepAliveTimeout = 65_000;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'sandbox stopping');
    server.close(() => {
      void sandbox.close().then(() => {
        process.exit(0);
      });
    });
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
    }, 5000).unref();
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
}

start();
