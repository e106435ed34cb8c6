/**
 * Calls made while the event loop is busy with one turn, sent together once it comes round again: the Redis
 * queue runs one script call per batch instead of one per event (fewer commands for Redis and for ioredis
 * to encode and parse, less garbage). Each caller still gets its own result, or the batch's error.
 */
interface Waiting<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: Error): void;
}

export class Batcher<I, O> {
  private waiting: Array<Waiting<I, O>> = [];

  /**
   * `run` answers a batch (at most `max` inputs) with one output per input, in their order (an Error output
   * fails its input alone). A batch that
   * fails with an error `isolate` picks (one input's doing, e.g. a Redis error reply) is run again one input
   * at a time, so that only the input that causes it fails. Inputs of different `part`s never share a batch (on a
   * Cluster: the queue group, whose keys one script may touch).
   */
  constructor(
    private readonly run: (inputs: I[]) => Promise<Array<O | Error>>,
    private readonly max: number,
    private readonly isolate: (error: unknown) => boolean = () => false,
    private readonly part: (input: I) => number = () => 0,
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    const parts = new Map<number, Array<Waiting<I, O>>>();
    for (const w of all) {
      const part = this.part(w.input);
      const same = parts.get(part);
      if (same) same.push(w);
      else parts.set(part, [w]);
    }
    for (const same of parts.values()) {
      for (let from = 0; from < same.length; from += this.max) this.send(same.slice(from, from + this.max));
    }
  }

  private send(batch: Array<Waiting<I, O>>): void {
    let answered: Promise<Array<O | Error>>;
    try {
      answered = this.run(batch.map((w) => w.input));
    } catch (error) {
      answered = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    answered.then(
      (outputs) => {
        for (const [i, w] of batch.entries()) {
          const output = outputs[i];
          if (i >= outputs.length) w.reject(new Error('a batched queue call got no answer of its own'));
          else if (output instanceof Error) w.reject(output);
          else w.resolve(output!);
        }
      },
      (error: unknown) => {
        if (batch.length > 1 && this.isolate(error)) {
          for (const w of batch) this.send([w]);
          return;
        }
        const err = error instanceof Error ? error : new Error(String(error));
        for (const w of batch) w.reject(err);
      },
    );
  }
}
