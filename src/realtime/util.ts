// Small helpers of the realtime hub.

/** `fn`, callable many times, run once. */
export function once(fn: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}

/** Adds `entry` to `set`; returns its remover. */
export function addTo<T>(set: Set<T>, entry: T): () => void {
  set.add(entry)
  return once(() => set.delete(entry))
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** `p`, or a rejection naming `what` after `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
