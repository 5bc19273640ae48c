import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import { AuditLog } from './audit.js';
import { Auth } from './auth.js';
import { Passwords } from './passwords.js';
import { Sealer } from './sealing.js';
import { Users } from './users.js';

export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  audit: AuditLog;
  users: Users;
  auth: Auth;
}

export function createServices(config: Config, db: Db, clock: Clock): Services {
  const passwords = new Passwords(config.argon2);
  const audit = new AuditLog(db, clock);
  const users = new Users(db, clock, passwords, audit, config.login);
  const auth = new Auth(db, clock, config, passwords, new Sealer(config.sessionSecret));
  return { config, db, clock, audit, users, auth };
}
