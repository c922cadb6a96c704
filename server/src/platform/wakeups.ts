// In-process wake-ups for work the worker also polls for: webhook deliveries this process commits are started at
// once rather than at the next poll (up to PGW_DELIVERY_INTERVAL_MS later). Other instances find them by polling.
type Listener = () => void;
const deliveryListeners = new Set<Listener>();

/** Calls `listener` whenever deliveries were committed here; returns what stops it. */
export function onDeliveriesDue(listener: Listener): () => void {
  deliveryListeners.add(listener);
  return () => { deliveryListeners.delete(listener); };
}

export function deliveriesDue(): void {
  for (const listener of deliveryListeners) listener();
}
