'use strict'
// vcap.js — find the app and results databases in Cloud Foundry's VCAP_SERVICES.
//
// VCAP_SERVICES is an object keyed by service label; each value is an array of bindings
// with name, label, tags and credentials (docs/cf-platform.md §4).
// Lookup as in contract/README.md: a binding by its `name`; with no name set, the first
// binding whose tags or label contain "postgres" and whose name is not the results binding.
// Credentials: `uri` first, else hostname|host, port (number or string), name|dbname|database,
// username|user, password (brokers differ: a9s uses `host`, the docs give port as a string).

const { ConfigError } = require('./config-error')

const DEFAULT_PG_PORT = 5432

/** All bindings of a parsed VCAP_SERVICES, in document order. */
function listBindings(raw) {
  let services
  try {
    services = JSON.parse(raw)
  } catch {
    throw new ConfigError('VCAP_SERVICES is not valid JSON')
  }
  if (services === null || typeof services !== 'object' || Array.isArray(services)) {
    throw new ConfigError('VCAP_SERVICES must be a JSON object of service arrays')
  }
  const bindings = []
  for (const list of Object.values(services)) {
    if (!Array.isArray(list)) continue
    for (const b of list) if (b && typeof b === 'object') bindings.push(b)
  }
  return bindings
}

function mentionsPostgres(binding) {
  const words = [binding.label, ...(Array.isArray(binding.tags) ? binding.tags : [])]
  return words.some((w) => typeof w === 'string' && w.toLowerCase().includes('postgres'))
}

function findByName(bindings, name) {
  return bindings.find((b) => b.name === name)
}

function findByTag(bindings, excludedName) {
  return bindings.find((b) => b.name !== excludedName && mentionsPostgres(b))
}

function firstString(creds, keys) {
  for (const k of keys) {
    if (typeof creds[k] === 'string' && creds[k] !== '') return creds[k]
  }
  return undefined
}

function credentialPort(binding, port) {
  if (port === undefined || port === null || port === '') return DEFAULT_PG_PORT
  if (typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536) return port
  if (typeof port === 'string' && /^[0-9]{1,5}$/.test(port) && Number(port) > 0 && Number(port) < 65536) {
    return Number(port)
  }
  throw new ConfigError(`VCAP_SERVICES binding "${binding.name}" has an invalid port`)
}

/**
 * Connection settings for node-postgres from one binding's credentials:
 * { connectionString } from `uri`, else { host, port, database, user, password }.
 */
function connectionFromBinding(binding) {
  const creds = binding.credentials && typeof binding.credentials === 'object' ? binding.credentials : {}
  const uri = firstString(creds, ['uri'])
  if (uri) return { connectionString: uri }
  const host = firstString(creds, ['hostname', 'host'])
  if (!host) {
    throw new ConfigError(`VCAP_SERVICES binding "${binding.name}" has neither uri nor hostname/host`)
  }
  return {
    host,
    port: credentialPort(binding, creds.port),
    database: firstString(creds, ['name', 'dbname', 'database']),
    user: firstString(creds, ['username', 'user']),
    password: firstString(creds, ['password']),
  }
}

/**
 * The app and results databases from VCAP_SERVICES.
 * dbServiceName: DB_SERVICE_NAME or undefined; resultsServiceName: RESULTS_SERVICE_NAME value;
 * resultsNameExplicit: whether RESULTS_SERVICE_NAME was set (then its binding must exist).
 * Returns { db, results } where results may be null.
 */
function databasesFromVcap(raw, { dbServiceName, resultsServiceName, resultsNameExplicit }) {
  const bindings = listBindings(raw)
  let dbBinding
  if (dbServiceName) {
    dbBinding = findByName(bindings, dbServiceName)
    if (!dbBinding) throw new ConfigError(`DB_SERVICE_NAME: no binding named "${dbServiceName}" in VCAP_SERVICES`)
  } else {
    dbBinding = findByTag(bindings, resultsServiceName)
    if (!dbBinding) {
      throw new ConfigError('DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding besides the results one')
    }
  }
  const resultsBinding = findByName(bindings, resultsServiceName)
  if (!resultsBinding && resultsNameExplicit) {
    throw new ConfigError(`RESULTS_SERVICE_NAME: no binding named "${resultsServiceName}" in VCAP_SERVICES`)
  }
  return {
    db: connectionFromBinding(dbBinding),
    results: resultsBinding ? connectionFromBinding(resultsBinding) : null,
  }
}

module.exports = { databasesFromVcap, connectionFromBinding }
