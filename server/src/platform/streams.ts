// The long-lived responses (event streams) open in this process: a draining server ends them, since
// server.close() waits for every response in flight and a stream never ends by itself.
const open = new Set<AbortController>();
let ended = false;

/** A signal that aborts when `signal` does or when the server ends its streams; call `done` when the stream ends. */
export function trackStream(signal: AbortSignal): { signal: AbortSignal; done: () => void } {
  const own = new AbortController();
  if (ended) own.abort();
  else open.add(own);
  return { signal: AbortSignal.any([signal, own.signal]), done: () => { open.delete(own); } };
}

/** Ends every open stream and refuses new ones (the server is stopping). */
export function endStreams(): void {
  ended = true;
  for (const controller of open) controller.abort();
  open.clear();
}
