// Waiting in tests: for a condition, not for a stretch of time. A sleep that stands in for "until
// it has happened" passes on a quiet machine and fails under load; these poll the thing itself
// and give up after a deadline, naming what they waited for. A sleep that deliberately lets time
// pass (to show that something does NOT happen within a window) says why beside it.

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Polls `cond` every 20 ms until it holds (true) or `ms` pass (false). */
export async function eventually(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms
  for (;;) {
    if (await cond()) return true
    if (Date.now() > end) return false
    await sleep(20)
  }
}

/** Waits until `cond` holds; throws "timed out after `ms` ms waiting for `what`" when it does not. */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  if (!(await eventually(cond, ms))) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
}
