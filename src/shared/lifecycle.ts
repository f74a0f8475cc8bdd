// Graceful shutdown bookkeeping: requests in flight, and the long-lived responses (SSE streams,
// parked long-polls) that must be ended cleanly when the node drains.

export class Lifecycle {
  private inflight = 0
  private draining = false
  private readonly closers = new Set<() => void>()
  private idle: (() => void) | undefined

  get accepting(): boolean {
    return !this.draining
  }

  /** Counts a request until `done` is called. */
  begin(): () => void {
    this.inflight++
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.inflight--
      if (this.inflight === 0) this.idle?.()
    }
  }

  /**
   * Registers a long-lived response to end when the node drains (the callback ends it cleanly:
   * a final SSE frame, an empty long-poll result). Returns the unregister function.
   */
  onDrain(close: () => void): () => void {
    if (this.draining) {
      close()
      return () => undefined
    }
    this.closers.add(close)
    return () => this.closers.delete(close)
  }

  /** Stops accepting, ends long-lived responses, and resolves when no request is in flight (or at `deadline`). */
  async drain(timeoutMs: number): Promise<{ clean: boolean }> {
    this.draining = true
    for (const close of [...this.closers]) {
      this.closers.delete(close)
      try {
        close()
      } catch {
        // a response that is already gone
      }
    }
    if (this.inflight === 0) return { clean: true }
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ clean: false }), timeoutMs)
      this.idle = () => {
        clearTimeout(timer)
        resolve({ clean: true })
      }
    })
  }

  get inFlight(): number {
    return this.inflight
  }
}
