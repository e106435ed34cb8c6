/**
 * Bounding how long we wait for something we can't cancel (a store ping, a platform read for a view
 * that must render anyway). The work itself goes on; only our wait ends.
 */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} took longer than ${ms} ms`);
  }
}

export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  // No race and no async frame: this wraps every webhook's enqueue.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
