// services.js — the broker behind `cf create-service postgres local NAME`: a database with its own role and
// password in the local PostgreSQL cluster, results-schema.sql applied, credentials in the
// shape CF brokers document (docs/cf-platform.md §4: uri, hostname, port as a string,
// name, username, password).
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { Client } = require('pg');
const { pgTool } = require('../../lib/credentials');

const SERVICE_LABEL = 'postgres';
const SERVICE_TAGS = ['postgres', 'postgresql'];
const PLANS = ['local'];

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', ...opts }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(cmd)} failed: ${(stderr || err.message).trim().split('\n').slice(-3).join(' ')}`));
      else resolve(stdout.trim());
    });
  });
}

function quoteIdent(s) { return `"${s.replace(/"/g, '""')}"`; }

function roleName(service) { return `svc_${service.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}`; }

class Postgres {
  constructor({ repoRoot, dir, port }) {
    this.script = path.join(__dirname, 'pg-cluster.js');
    this.schema = path.join(repoRoot, 'results-schema.sql');
    this.dir = dir;
    this.port = port;
    this.superUrl = null;
  }

  async start() {
    this.superUrl = await run(process.execPath, [this.script, 'start', '--dir', this.dir, '--port', String(this.port)]);
    return this.superUrl;
  }

  async stop() {
    await run(process.execPath, [this.script, 'stop', '--dir', this.dir]);
  }

  async query(sql, params = [], database = 'postgres') {
    const url = new URL(this.superUrl);
    url.pathname = `/${database}`;
    const c = new Client({ connectionString: url.toString() });
    await c.connect();
    try { return await c.query(sql, params); } finally { await c.end(); }
  }

  async createService(name, plan) {
    if (!PLANS.includes(plan)) throw new Error(`plan "${plan}" not found for service postgres (plans: ${PLANS.join(', ')})`);
    if (!/^[a-z_][a-z0-9_-]{0,62}$/.test(name)) throw new Error(`service name "${name}" must match [a-z_][a-z0-9_-]{0,62} locally`);
    const role = roleName(name);
    const password = crypto.randomBytes(18).toString('base64url');
    const roles = await this.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    const verb = roles.rowCount ? 'ALTER' : 'CREATE';
    await this.query(`${verb} ROLE ${quoteIdent(role)} LOGIN PASSWORD '${password}'`);
    const dbs = await this.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!dbs.rowCount) await this.query(`CREATE DATABASE ${quoteIdent(name)} OWNER ${quoteIdent(role)}`);
    const uri = `postgres://${role}:${password}@127.0.0.1:${this.port}/${name}`;
    // psql's arguments are visible to every user (ps): the password goes in its environment.
    const { conninfo, env } = pgTool(uri);
    await run('psql', [conninfo, '-v', 'ON_ERROR_STOP=1', '-q', '-f', this.schema], {
      env: { ...process.env, ...env, PGOPTIONS: '-c client_min_messages=warning' },
    });
    return {
      name,
      guid: crypto.randomUUID(),
      label: SERVICE_LABEL,
      plan,
      tags: SERVICE_TAGS,
      credentials: { uri, hostname: '127.0.0.1', port: String(this.port), name, username: role, password },
    };
  }

  async deleteService(name) {
    await this.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await this.query(`DROP ROLE IF EXISTS ${quoteIdent(roleName(name))}`);
  }
}

module.exports = { Postgres, SERVICE_LABEL, SERVICE_TAGS };
