// Ctrl-C and SIGTERM during a run: the run's clean-up (its sandboxes deleted, or what it created) still happens
// before the process ends, once; a second signal ends it at once.
export function onInterrupt(cleanUp: () => Promise<void>, say: (line: string) => void): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
    stopping = true;
    say(`${signal}: cleaning up before stopping (a second ${signal} stops at once)`);
    void cleanUp().finally(() => { process.exit(signal === 'SIGINT' ? 130 : 143); });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
