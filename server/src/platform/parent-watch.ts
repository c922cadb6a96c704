// Stops the server when the process that started it goes away without passing a signal on. `npm start` and
// `npx` run it through `sh -c`: a SIGTERM to npm's pid ends npm and the shell, and reached no further (the
// server and both instances of PGW_INSTANCES=2 kept running). An instance whose primary died goes the same way.
const CHECK_MS = 1000;

/** Calls `stop` once, when this process's parent is no longer the one it had at start. */
export function stopWhenOrphaned(stop: () => void): void {
  const parent = process.ppid;
  // Started by init or as a container's first process: no parent to outlive.
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, CHECK_MS);
  timer.unref();
}
