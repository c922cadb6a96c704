// The long-lived responses (event streams) open in this process: a draining server ends them, since
// server.close() waits for every response in flight and a stream never ends by itself. One registry per
// server, made at start (instances.ts).
export class Streams {
  private readonly open = new Set<AbortController>();
  private ended = false;

  /** A signal that aborts when `signal` does or when the server ends its streams; call `done` when the stream ends. */
  track(signal: AbortSignal): { signal: AbortSignal; done: () => void } {
    // A controller of its own, aborted through a listener (not AbortSignal.any, whose signal may be collected
    // while only weakly referred to).
    const own = new AbortController();
    const abort = (): void => { own.abort(); };
    if (this.ended || signal.aborted) own.abort();
    else {
      this.open.add(own);
      signal.addEventListener('abort', abort, { once: true });
    }
    return { signal: own.signal, done: () => { this.open.delete(own); signal.removeEventListener('abort', abort); } };
  }

  /** Ends every open stream and refuses new ones (the server is stopping). */
  end(): void {
    this.ended = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
  }
}
