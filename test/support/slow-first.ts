/**
 * A sequencer that starts the files known to take longest first: a suite ends when its longest file does, and on a
 * fresh clone (no timings kept yet) vitest starts the largest files first, which left long but short-sourced files
 * such as a 60 s Slack outage for last.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function slowFirst(slowest: readonly string[]): typeof BaseSequencer {
  return class SlowFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (file: TestSpecification) => {
        const at = slowest.findIndex((name) => file.moduleId.endsWith(name));
        return at === -1 ? slowest.length : at;
      };
      // Array.prototype.sort is stable: the rest keep vitest's own order.
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}
