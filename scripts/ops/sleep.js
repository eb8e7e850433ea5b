'use strict';
// sleep.js — the one pause of the round helpers (create-round, wait-round, steady-watch,
// run-round, results-db's backoff): resolves after ms, or at once when the signal aborts.
//
// The abort listener goes with the timer. A poll loop that left one listener per pause on
// the round's one AbortSignal piled them up and Node warned (MaxListenersExceededWarning,
// 11 abort listeners) during every round.

/** Resolves after ms or when signal aborts; leaves no listener on signal behind. */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) { resolve(); return; }
    const onAbort = () => { clearTimeout(t); resolve(); };
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

module.exports = { sleep };
