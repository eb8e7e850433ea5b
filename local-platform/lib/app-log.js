// app-log.js — each app's log as `cf logs` shows it: `<ts> [SOURCE] OUT|ERR message`,
// with the CLI's timestamp layout 2006-01-02T15:04:05.00-0700 (docs/cf-platform.md §10)
// indented as the cf CLI prints it. One file per app under $CFSCALE_HOME/logs; rotated once
// past MAX_BYTES so a long run cannot fill the disk (like loggregator, logs are a window).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { appId } = require('./app-id');

const MAX_BYTES = 256 * 1024 * 1024;
const FLUSH_MS = 100;
const FLUSH_LINES = 500; // cf logs --recent fetches about 1000 lines (§5)

function cfTimestamp(d = new Date()) {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 22)}+0000`;
}

function formatLine(source, stream, message, d) {
  return `   ${cfTimestamp(d)} [${source}] ${stream} ${message}`;
}

class AppLogs {
  constructor(dir) {
    this.dir = dir;
    this.files = new Map(); // app → {fd, size, pending: [lines]}
    this.listeners = []; // (app, source, stream, message) per line: the CC API's log-cache
    fs.mkdirSync(dir, { recursive: true });
    // Lines are written in batches (a busy router logs thousands a second).
    this.timer = setInterval(() => this.flushAll(), FLUSH_MS);
    this.timer.unref();
  }

  file(app) { return path.join(this.dir, `${appId(app)}.log`); }

  addListener(fn) { this.listeners.push(fn); }

  write(app, source, stream, message) {
    let entry = this.files.get(app);
    if (!entry) {
      const fd = fs.openSync(this.file(app), 'a');
      entry = { fd, size: fs.fstatSync(fd).size, pending: [] };
      this.files.set(app, entry);
    }
    entry.pending.push(formatLine(source, stream, message));
    for (const fn of this.listeners) fn(app, source, stream, message);
    if (entry.pending.length >= FLUSH_LINES) this.flush(app, entry);
  }

  flush(app, entry) {
    if (!entry.pending.length) return;
    const text = `${entry.pending.join('\n')}\n`;
    entry.pending = [];
    entry.size += Buffer.byteLength(text);
    fs.writeSync(entry.fd, text);
    if (entry.size > MAX_BYTES) {
      fs.closeSync(entry.fd);
      this.files.delete(app);
      fs.renameSync(this.file(app), `${this.file(app)}.1`);
    }
  }

  flushAll() {
    for (const [app, entry] of [...this.files]) this.flush(app, entry);
  }

  closeAll() {
    this.flushAll();
    clearInterval(this.timer);
    for (const { fd } of this.files.values()) fs.closeSync(fd);
    this.files.clear();
  }
}

module.exports = { AppLogs, formatLine, cfTimestamp };
