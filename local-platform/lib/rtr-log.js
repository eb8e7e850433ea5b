// rtr-log.js — turn HAProxy's JSON access-log records (haproxy-config.js logFormat) into
// Gorouter access-log lines (docs/cf-platform.md §5), and the UDP syslog sink that
// receives them. HAProxy's timers have millisecond resolution: response_time = %Ta and
// gorouter_time = %Ta − %Tr (the part not spent waiting for the app's response headers),
// both printed in seconds with 6 decimals as Gorouter does.
'use strict';

const dgram = require('node:dgram');

function dash(v) {
  return v === undefined || v === null || v === '' || v === '-' ? '-' : String(v);
}

function num(v, fallback = 0) {
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

// "2006-01-02T15:04:05.000000000Z" from epoch seconds + milliseconds.
function rtrTimestamp(sec, ms) {
  const iso = new Date(num(sec) * 1000 + num(ms)).toISOString(); // ...SS.mmmZ
  return `${iso.slice(0, 23)}000000Z`;
}

function seconds(ms) {
  return (Math.max(0, ms) / 1000).toFixed(6);
}

// Gorouter's x_cf_routererror for answers the router made itself: HAProxy's termination
// state (%tsc) is not "--" when the session ended abnormally.
function routerError(rec) {
  const st = num(rec.st);
  if (![502, 503, 504].includes(st) || !rec.tsc || rec.tsc.startsWith('-')) return '-';
  return rec.s === '<NOSRV>' ? 'no_endpoints' : 'endpoint_failure';
}

// rec: parsed JSON record; lookup(backend, server) → {appGuid, index, instanceGuid} | null.
function toRtrLine(rec, target) {
  const ta = num(rec.ta, 0);
  const tr = num(rec.tr, -1);
  const host = dash(rec.host).split(':')[0];
  const respLen = rec.rcl && rec.rcl !== '-' ? rec.rcl : rec.bout;
  const xff = rec.xff && rec.xff !== '-' ? `${rec.xff}, ${rec.ci}` : rec.ci;
  const backend = rec.si && rec.si !== '-' && rec.sp && rec.sp !== '-' && rec.sp !== '0' ? `${rec.si}:${rec.sp}` : '-';
  return [
    `${host} - [${rtrTimestamp(rec.ts, rec.ms)}]`,
    `"${dash(rec.m)} ${dash(rec.u)} ${dash(rec.v)}"`,
    `${num(rec.st)} ${num(rec.bin)} ${num(respLen)}`,
    `"${dash(rec.ref)}" "${dash(rec.ua)}" "${rec.ci}:${rec.cp}" "${backend}"`,
    `x_forwarded_for:"${dash(xff)}" x_forwarded_proto:"${dash(rec.xfp === '-' ? 'http' : rec.xfp)}"`,
    `vcap_request_id:"${dash(rec.id)}"`,
    `response_time:${seconds(ta)} gorouter_time:${seconds(tr >= 0 ? ta - tr : ta)}`,
    `app_id:"${target ? target.appGuid : '-'}" app_index:"${target ? target.index : '-'}"`,
    `instance_id:"${target && target.instanceGuid ? target.instanceGuid : '-'}"`,
    `x_cf_routererror:"${routerError(rec)}"`,
    `x_correlation_id:"${dash(rec.cid)}"`,
  ].join(' ');
}

// Parse the raw syslog payload (HAProxy `format raw`: just the message).
function parseRecord(buf) {
  const text = buf.toString('utf8');
  const i = text.indexOf('{');
  if (i < 0) return null;
  try { return JSON.parse(text.slice(i).trim()); } catch { return null; }
}

// Listen on 127.0.0.1:<ephemeral> for HAProxy's log datagrams; onRecord(rec) per request.
function startSink(onRecord) {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket('udp4');
    sock.on('error', reject);
    sock.on('message', (msg) => {
      const rec = parseRecord(msg);
      if (rec) onRecord(rec);
    });
    sock.bind(0, '127.0.0.1', () => {
      try { sock.setRecvBufferSize(8 * 1024 * 1024); } catch { /* best effort */ }
      resolve({ port: sock.address().port, close: () => sock.close() });
    });
  });
}

module.exports = { toRtrLine, parseRecord, startSink, rtrTimestamp };
