'use strict';
// json-stream.js — pull whole JSON values out of a text stream that also carries junk.
//
// `cf statistics APP --debug --full` prints one JSON object per line, interleaved with
// `ERROR: …`, `TIMEOUT` and blank lines (docs/cf-platform.md §1);
// `cf curl …/stats` prints one pretty-printed document per poll, so a poller's output is
// a stream of concatenated multi-line values (§2). This scanner handles both, without
// ever losing the stream on bad input:
//   * a value may start only as the first non-blank character of a line, or right after
//     the previous value ended on the same line; anything else on a line is junk;
//   * a raw newline inside a string is not JSON: the broken value is dropped;
//   * a `{` or `[` in column 0 while a value is still open means the open value was cut
//     off (a killed poller): it is dropped and the new one starts there;
//   * a value larger than maxValueBytes is dropped (junk cannot eat the memory).

const DEFAULT_MAX_VALUE_BYTES = 8 * 1024 * 1024;

class JsonStream {
  /**
   * @param {(value: unknown) => void} onValue called with each parsed value
   * @param {{maxValueBytes?: number}} [options]
   */
  constructor(onValue, options = {}) {
    this.onValue = onValue;
    this.maxValueBytes = options.maxValueBytes || DEFAULT_MAX_VALUE_BYTES;
    this.counts = { values: 0, junkLines: 0, brokenValues: 0 };
    this.value = null; // characters of the open value, or null
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.lineStart = true; // at column 0 (used inside a value)
    this.lineJunk = false; // rest of this line is junk
  }

  /** Feed the next piece of text (any split, even mid-character of a line). */
  write(text) {
    for (let i = 0; i < text.length; i++) this.#char(text[i]);
  }

  /** End of input: a value still open was cut off and counts as broken. */
  end() {
    if (this.value !== null) this.#drop();
  }

  #char(c) {
    if (this.value !== null) return this.#inValue(c);
    if (c === '\n') {
      this.lineStart = true;
      this.lineJunk = false;
      return;
    }
    if (this.lineJunk) return;
    if (c === ' ' || c === '\t' || c === '\r') return;
    if (c === '{' || c === '[') {
      this.#open(c);
      return;
    }
    this.lineJunk = true;
    this.counts.junkLines++;
  }

  #open(c) {
    this.value = [c];
    this.size = 1;
    this.depth = 1;
    this.inString = false;
    this.escaped = false;
    this.lineStart = false;
  }

  #inValue(c) {
    if (c === '\n') {
      if (this.inString) return this.#drop(); // raw newline: not JSON
      this.value.push(c);
      this.lineStart = true;
      return;
    }
    if (this.lineStart && (c === '{' || c === '[') && !this.inString) {
      this.#drop(); // column-0 opener while a value is open: the open one was cut off
      this.#open(c);
      return;
    }
    this.lineStart = false;
    this.value.push(c);
    if (++this.size > this.maxValueBytes) return this.#drop();
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === '\\') this.escaped = true;
      else if (c === '"') this.inString = false;
      return;
    }
    if (c === '"') this.inString = true;
    else if (c === '{' || c === '[') this.depth++;
    else if (c === '}' || c === ']') {
      if (--this.depth === 0) this.#close();
    }
  }

  #close() {
    const text = this.value.join('');
    this.value = null;
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.counts.brokenValues++;
      this.lineJunk = true;
      return;
    }
    this.counts.values++;
    this.onValue(parsed);
  }

  #drop() {
    this.value = null;
    this.counts.brokenValues++;
    this.lineStart = true;
    this.lineJunk = false;
  }
}

module.exports = { JsonStream, DEFAULT_MAX_VALUE_BYTES };
