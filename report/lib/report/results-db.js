// results-db.js — a client on the results database as the report and compare read it: numbers
// as numbers (lib/results-client.js). Where the database is: lib/results-db-url.js.
'use strict';
const pg = require('pg');
const { connectResults } = require('../../../lib/results-client.js');

/** A connected client on `url`, as application cfscale-NAME. */
const connect = (url, name = 'report') => connectResults(pg, url, name, { numbers: true });

module.exports = { connect };
