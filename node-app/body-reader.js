'use strict';
// body-reader.js — read a request body of at most 65536 bytes (contract: 413 by
// Content-Length before reading, or as soon as the bytes read pass the limit). Reading
// stops at the limit, so a huge body costs at most one chunk of memory.

const { HttpError } = require('./http-error');

const MAX_BODY_BYTES = 65536;

// The rest of an oversized body is never read, so the connection cannot be reused.
function tooLarge() {
  return new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
}

/** The body as one Buffer; rejects with a 413 HttpError, or the stream's error. */
function readBody(req) {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const cleanup = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
    };
    const onData = (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (err) => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

module.exports = { readBody, MAX_BODY_BYTES };
