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

export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
