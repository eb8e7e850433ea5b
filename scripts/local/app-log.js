// app-log.js — each app's log as `cf logs` shows it: `<ts> [SOURCE] OUT|ERR message`,
// with the CLI's timestamp layout 2006-01-02T15:04:05.00-0700 (cloud-foundry-contracts.md §5)
// indented as the cf CLI prints it. One file per app under $CFSCALE_HOME/logs; rotated once
// past MAX_BYTES so a long run cannot fill the disk (like loggregator, logs are a window).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const MAX_BYTES = 64 * 1024 * 1024;
const RECENT_LINES = 1000; // cf logs --recent fetches about 1000 lines (§5)

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
    this.fds = new Map();
    fs.mkdirSync(dir, { recursive: true });
  }

  file(app) { return path.join(this.dir, `${app}.log`); }

  write(app, source, stream, message) {
    let entry = this.fds.get(app);
    if (!entry) {
      const fd = fs.openSync(this.file(app), 'a');
      entry = { fd, size: fs.fstatSync(fd).size };
      this.fds.set(app, entry);
    }
    const line = `${formatLine(source, stream, message)}\n`;
    entry.size += Buffer.byteLength(line);
    fs.writeSync(entry.fd, line);
    if (entry.size > MAX_BYTES) {
      fs.closeSync(entry.fd);
      this.fds.delete(app);
      fs.renameSync(this.file(app), `${this.file(app)}.1`);
    }
  }

  closeAll() {
    for (const { fd } of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}

// The last n lines of an app's log (current file, topped up from the rotated one).
function recentLines(file, n = RECENT_LINES) {
  const read = (f) => { try { return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean); } catch { return []; } };
  let lines = read(file);
  if (lines.length < n) lines = read(`${file}.1`).concat(lines);
  return lines.slice(-n);
}

module.exports = { AppLogs, recentLines, formatLine, cfTimestamp };
