'use strict';
// The local spool: COPY-text batches that could not be loaded (results database
// unreachable, or a COPY whose outcome is unknown) wait here as files until the
// sink can replay them. A file is written under a temporary name and renamed, so a
// reader never sees half a batch; it is removed only after its rows are in.

const fs = require('node:fs');
const path = require('node:path');

const SUFFIX = '.copy';

class Spool {
  constructor(dir) {
    this.dir = dir;
    this.seq = 0;
    fs.mkdirSync(dir, { recursive: true });
  }

  /** Writes one batch synchronously (also safe on the way out of a SIGTERM). */
  write(buf) {
    const name = `${Date.now()}-${process.pid}-${String(this.seq++).padStart(6, '0')}${SUFFIX}`;
    const tmp = path.join(this.dir, '.' + name + '.tmp');
    fs.mkdirSync(this.dir, { recursive: true }); // cheap; survives a cleaned-up /tmp
    fs.writeFileSync(tmp, buf);
    fs.renameSync(tmp, path.join(this.dir, name));
    return name;
  }

  /** Spooled batch files, oldest first. */
  list() {
    let names;
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((n) => n.endsWith(SUFFIX) && !n.startsWith('.')).sort();
  }

  read(name) {
    try {
      return fs.readFileSync(path.join(this.dir, name));
    } catch (err) {
      if (err.code === 'ENOENT') return null; // replayed meanwhile by another sink
      throw err;
    }
  }

  /** Moves a batch the database refuses to DIR/rejected, out of the replay queue. */
  quarantine(name) {
    const dir = path.join(this.dir, 'rejected');
    fs.mkdirSync(dir, { recursive: true });
    fs.renameSync(path.join(this.dir, name), path.join(dir, name));
  }

  remove(name) {
    fs.rmSync(path.join(this.dir, name), { force: true });
  }
}

module.exports = { Spool };
