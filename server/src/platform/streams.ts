// The long-lived responses (event streams) open in this process: a draining server ends them, since
// server.close() waits for every response in flight and a stream never ends by itself.
const open = new Set<AbortController>();
let ended = false;

/** A signal that aborts when `signal` does or when the server ends its streams; call `done` when the stream ends. */
export function trackStream(signal: AbortSignal): { signal: AbortSignal; done: () => void } {
  // A controller of its own, aborted through a listener (not AbortSignal.any, whose signal may be collected
  // while only weakly referred to).
  const own = new AbortController();
  const abort = (): void => { own.abort(); };
  if (ended || signal.aborted) own.abort();
  else {
    open.add(own);
    signal.addEventListener('abort', abort, { once: true });
  }
  return { signal: own.signal, done: () => { open.delete(own); signal.removeEventListener('abort', abort); } };
}

/** Ends every open stream and refuses new ones (the server is stopping). */
export function endStreams(): void {
  ended = true;
  for (const controller of open) controller.abort();
  open.clear();
}
